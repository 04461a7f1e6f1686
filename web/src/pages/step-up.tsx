/**
 * The code prompt of sensitive changes (docs/security.md#step-up): shown when the API asked for a two-factor code
 * from the last 5 minutes; confirms it, then runs the change again.
 */
import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { ErrorBox } from '../components';
import { confirmCode } from '../security';

/** A one-field form for a 6-digit code; `onConfirmed` retries the change. */
export function StepUpPrompt({ onConfirmed }: { onConfirmed: () => void }) {
  const [code, setCode] = useState('');
  const verify = useMutation({ mutationFn: () => confirmCode(code), onSuccess: onConfirmed });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    verify.mutate();
  };
  return (
    <form onSubmit={submit} className="step-up" data-testid="step-up">
      <label htmlFor="step-up-code">This change needs a code from your authenticator app</label>
      <input
        id="step-up-code"
        inputMode="numeric"
        autoComplete="one-time-code"
        pattern="[0-9]{6}"
        required
        value={code}
        onChange={(e) => setCode(e.target.value.trim())}
      />
      <ErrorBox error={verify.error} />
      <button type="submit" className="primary" disabled={verify.isPending}>
        Confirm and continue
      </button>
    </form>
  );
}
