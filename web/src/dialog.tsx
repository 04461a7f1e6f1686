/**
 * The confirmation of an action that moves money or replaces credentials (docs/dashboard.md#confirmations): a modal
 * built on Radix UI's Dialog (focus kept inside and first on "Go back", Escape and the backdrop cancel, focus returns
 * to what opened it, the title announced as the dialog's name). Its own module, so only the screens that confirm
 * something load it.
 */
import * as Dialog from '@radix-ui/react-dialog';
import type { ReactNode } from 'react';

/** One line of what the action will do: a name and its value (amounts already formatted). */
export interface ConfirmFact {
  label: string;
  value: ReactNode;
  testId?: string;
}

/**
 * A modal asking to confirm an action while `open`: `title`, then `description` (announced with it), the `facts`
 * (amount, fee, destination…) and `children`, above "Go back" (`onCancel`, also Escape) and `confirmLabel`
 * (`onConfirm`). `busy` disables both buttons while the request runs, so a second click sends nothing.
 */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
  danger?: boolean;
  description?: string;
  facts?: ConfirmFact[];
  children?: ReactNode;
  testId?: string;
}) {
  const describedBy = props.description ? {} : { 'aria-describedby': undefined };
  return (
    <Dialog.Root
      open={props.open}
      onOpenChange={(open) => {
        if (!open && !props.busy) props.onCancel();
      }}
    >
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog" data-testid={props.testId} {...describedBy}>
          <Dialog.Title asChild>
            <h2>{props.title}</h2>
          </Dialog.Title>
          {props.description ? <Dialog.Description className="hint">{props.description}</Dialog.Description> : null}
          {props.facts ? (
            <dl className="facts confirm-facts">
              {props.facts.map((fact) => (
                <div key={fact.label}>
                  <dt>{fact.label}</dt>
                  <dd data-testid={fact.testId}>{fact.value}</dd>
                </div>
              ))}
            </dl>
          ) : null}
          {props.children ? <div>{props.children}</div> : null}
          <div className="actions">
            <button type="button" onClick={props.onCancel} disabled={props.busy}>
              Go back
            </button>
            <button
              type="button"
              className={props.danger ? 'danger' : 'primary'}
              onClick={props.onConfirm}
              disabled={props.busy}
            >
              {props.busy ? 'Working…' : props.confirmLabel}
            </button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
