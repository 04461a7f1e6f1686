/**
 * The Temporal server of the production topology (docs/operations.md#cluster): the real server
 * (`go.temporal.io/server/cmd/server`) and its SQL tool (`…/cmd/tools/sql`) built from the Go module
 * proxy at {@link TEMPORAL_SERVER_VERSION} and cached like the CLI, its schemas set up on PostgreSQL,
 * a YAML config with {@link HISTORY_SHARDS} history shards and PostgreSQL persistence and visibility
 * (pgx plugin `postgres12`), the namespace and the custom search attributes (docs/payments.md#workflow) registered once
 * it
 * answers; and the Temporal Web UI (`github.com/temporalio/ui-server`) pointed at it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { CUSTOM_SEARCH_ATTRIBUTES } from '../../src/workflows/messages';
import { goInstallCached } from './go-install';
import { freePort, waitForPort } from './ports';
import { cacheDir } from './temporal-cli';
import { stopChild } from './temporal-dev-server';

/**
 * The server and SQL tool tag (its `go.mod` has no `replace` directive, so `go install` builds it;
 * docs/operations.md#cluster).
 */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
/** The UI server tag: the UI that the CLI v1.5.1 (server 1.29.1) embeds in its dev server. */
export const TEMPORAL_UI_SERVER_VERSION = 'v2.42.1';
/**
 * History shards of the cluster. Fixed when the persistence database is first used: a database set
 * up with one count cannot be opened with another (docs/operations.md#cluster).
 */
export const HISTORY_SHARDS = 4;
/** How long closed workflows stay visible in the namespace, in days. */
export const NAMESPACE_RETENTION_DAYS = 7;

/** The server binary and the SQL tool binary. */
export interface TemporalServerBinaries {
  server: string;
  sqlTool: string;
}

/**
 * The server and SQL tool: `TEMPORAL_SERVER_PATH` and `TEMPORAL_SQL_TOOL_PATH` when both are set,
 * otherwise the user cache, built there with `go install …@v1.29.1` on first use (about 3½ min here).
 * @throws Error when they are not cached and Go is missing or the build fails
 */
export async function resolveTemporalServer(log: (line: string) => void): Promise<TemporalServerBinaries> {
  if (process.env.TEMPORAL_SERVER_PATH && process.env.TEMPORAL_SQL_TOOL_PATH) {
    return { server: process.env.TEMPORAL_SERVER_PATH, sqlTool: process.env.TEMPORAL_SQL_TOOL_PATH };
  }
  const [server, sqlTool] = await goInstallCached(
    path.join(cacheDir(), `temporal-server-${TEMPORAL_SERVER_VERSION}`),
    [
      `go.temporal.io/server/cmd/server@${TEMPORAL_SERVER_VERSION}`,
      `go.temporal.io/server/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`,
    ],
    ['server', 'sql'],
    log,
    `the Temporal server ${TEMPORAL_SERVER_VERSION}`,
  );
  return { server: server as string, sqlTool: sqlTool as string };
}

/**
 * The Temporal UI server: `TEMPORAL_UI_SERVER_PATH` when set, otherwise the user cache, built there
 * with `go install github.com/temporalio/ui-server/v2/cmd/server@v2.42.1` on first use (about 1 min
 * once the CLI's modules are cached; the module carries the built UI).
 * @throws Error when it is not cached and Go is missing or the build fails
 */
export async function resolveTemporalUiServer(log: (line: string) => void): Promise<string> {
  if (process.env.TEMPORAL_UI_SERVER_PATH) return process.env.TEMPORAL_UI_SERVER_PATH;
  const [binary] = await goInstallCached(
    path.join(cacheDir(), `temporal-ui-server-${TEMPORAL_UI_SERVER_VERSION}`),
    [`github.com/temporalio/ui-server/v2/cmd/server@${TEMPORAL_UI_SERVER_VERSION}`],
    ['server'],
    log,
    `the Temporal UI server ${TEMPORAL_UI_SERVER_VERSION}`,
  );
  return binary as string;
}

/** Where Temporal keeps its state: one PostgreSQL server, two databases. */
export interface TemporalDatabases {
  host: string;
  port: number;
  user: string;
  password: string;
  /** The persistence database (executions, history, shards, namespaces). */
  database: string;
  /** The visibility database (workflow lists and search attributes). */
  visibilityDatabase: string;
}

/**
 * Temporal's databases on the server of `url` (`postgres://user:password@host:port/name`): `name`
 * (or `defaultName` when the URL names none, or when `defaultName` is given explicitly) and
 * `<name>_visibility`.
 * @throws TypeError when `url` is not a URL
 */
export function temporalDatabasesAt(url: string, defaultName?: string): TemporalDatabases {
  const parsed = new URL(url);
  const fromUrl = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  const database = defaultName ?? (fromUrl || 'temporal');
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database,
    visibilityDatabase: `${database}_visibility`,
  };
}

/** Runs the SQL tool with the connection flags of `target` and `args`; resolves with its output. */
function runSqlTool(sqlTool: string, target: TemporalDatabases, database: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      sqlTool,
      [
        '--plugin',
        'postgres12',
        '--ep',
        target.host,
        '-p',
        String(target.port),
        '-u',
        target.user,
        '--db',
        database,
        ...args,
      ],
      {
        // The password through the environment, not the command line (which `ps` shows).
        env: { ...process.env, SQL_PASSWORD: target.password },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output = (output + chunk).slice(-8000)));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output = (output + chunk).slice(-8000)));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(output)
        : reject(
            new Error(`temporal-sql-tool ${args[0]} on ${database} failed (exit ${code}):\n${output.slice(-3000)}`),
          ),
    );
  });
}

/**
 * Creates Temporal's two databases when missing and brings their schemas to the version this
 * server needs, with the schemas embedded in the SQL tool: `create-database`, `setup-schema -v 0.0`
 * (the version tables) and `update-schema --schema-name postgresql/v12/{temporal,visibility}`. Each
 * step is a no-op when already done, so this runs at every start and upgrades an older schema.
 * @returns how long it took, in milliseconds
 * @throws Error with the tool's output when a step fails (e.g. the user may not create databases)
 */
export async function setupTemporalSchemas(
  sqlTool: string,
  target: TemporalDatabases,
  log: (line: string) => void,
): Promise<number> {
  const started = Date.now();
  for (const [database, schema] of [
    [target.database, 'postgresql/v12/temporal'],
    [target.visibilityDatabase, 'postgresql/v12/visibility'],
  ] as const) {
    await runSqlTool(sqlTool, target, database, ['create-database']);
    await runSqlTool(sqlTool, target, database, ['setup-schema', '-v', '0.0']);
    const output = await runSqlTool(sqlTool, target, database, ['update-schema', '--schema-name', schema]);
    const updated = /Schema updated from [\d.]+ to ([\d.]+)/g;
    const versions = [...output.matchAll(updated)].map((match) => match[1]);
    log(
      versions.length
        ? `schema ${schema} on ${database} brought to ${versions.at(-1)}`
        : `schema ${schema} on ${database} is current`,
    );
  }
  return Date.now() - started;
}

/** Ports of the server's four services (gRPC and membership), its HTTP API and its metrics. */
interface ServerPorts {
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
  metrics: number;
}

/** A YAML double-quoted scalar (JSON strings are valid YAML). */
const quoted = (value: string) => JSON.stringify(value);

/**
 * The server's static config (YAML): PostgreSQL persistence and visibility, {@link HISTORY_SHARDS}
 * shards, every service on 127.0.0.1 on the given ports, Prometheus metrics, warnings and errors
 * only in the log (JSON lines), and the dynamic config file beside it.
 */
function serverConfigYaml(target: TemporalDatabases, ports: ServerPorts, dynamicConfigFile: string): string {
  const store = (database: string, maxConns: number) => `      sql:
        pluginName: postgres12
        databaseName: ${quoted(database)}
        connectAddr: ${quoted(`${target.host}:${target.port}`)}
        connectProtocol: tcp
        user: ${quoted(target.user)}
        password: ${quoted(target.password)}
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: 1h`;
  const service = (grpc: number, membership: number, http?: number) =>
    `    rpc: { grpcPort: ${grpc}, membershipPort: ${membership}, bindOnIP: 127.0.0.1${http ? `, httpPort: ${http}` : ''} }`;
  return `# Written by scripts/lib/temporal-server.ts at every start (docs/operations.md#cluster).
log:
  stdout: true
  level: warn
  format: json
persistence:
  numHistoryShards: ${HISTORY_SHARDS}
  defaultStore: default
  visibilityStore: visibility
  datastores:
    default:
${store(target.database, 20)}
    visibility:
${store(target.visibilityDatabase, 10)}
global:
  membership:
    maxJoinDuration: 10s
    broadcastAddress: 127.0.0.1
  metrics:
    prometheus:
      framework: tally
      timerType: histogram
      listenAddress: 127.0.0.1:${ports.metrics}
services:
  frontend:
${service(ports.frontend, ports.frontendMembership, ports.frontendHttp)}
  history:
${service(ports.history, ports.historyMembership)}
  matching:
${service(ports.matching, ports.matchingMembership)}
  worker:
${service(ports.worker, ports.workerMembership)}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: 127.0.0.1:${ports.frontend}
      httpAddress: 127.0.0.1:${ports.frontendHttp}
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: ${quoted(dynamicConfigFile)}
  pollInterval: 10s
`;
}

/**
 * Dynamic config: the two values the CLI's dev server changes from the server's defaults, so that
 * the cluster and the dev server compare fairly (bench): a host-level history cache of 8,192
 * workflows instead of 128,000 (memory on one machine) and 100 visibility requests a second per
 * namespace instead of 10 (the API's and admin's list calls).
 */
/** The server's dynamic config, shared with docker-compose.yml (ops/temporal/dynamicconfig.yaml). */
const DYNAMIC_CONFIG_FILE = path.join(__dirname, '..', '..', 'ops', 'temporal', 'dynamicconfig.yaml');

/** What {@link startTemporalServer} needs. */
export interface TemporalServerOptions {
  /** The server binary ({@link resolveTemporalServer}). */
  binary: string;
  target: TemporalDatabases;
  /** A folder of the server's own: `config/development.yaml` and the dynamic config are written there. */
  dir: string;
  /** The frontend's gRPC port (free one when omitted). */
  port?: number;
  /** The namespace to register (default `default`). */
  namespace?: string;
  /** The server's log (JSON lines, warnings and errors). */
  logFile: string;
}

/** A running Temporal server: its frontend, namespace, metrics, and how to stop it. */
export interface TemporalServer {
  /** `127.0.0.1:<port>` of the frontend (gRPC). */
  address: string;
  /** `127.0.0.1:<port>` of the frontend's HTTP API. */
  httpAddress: string;
  namespace: string;
  /** The server's Prometheus metrics (requests and persistence calls by operation). */
  metricsUrl: string;
  process: ChildProcess;
  /**
   * How long the start took, in milliseconds: until the frontend answered, until the namespace and search attributes
   * were usable.
   */
  timings: { frontendMs: number; readyMs: number };
  /** SIGTERM, SIGKILL after 10 s; resolves when the server is gone. */
  stop(): Promise<void>;
}

/**
 * Writes the config and starts `server --root <dir> --config config --env development --allow-no-auth
 * start` (all four services in one process), waits for the frontend, registers the namespace
 * ({@link NAMESPACE_RETENTION_DAYS} days' retention) and the custom search attributes (docs/payments.md#workflow) when
 * missing, and resolves once both are usable. The schemas must be set up first ({@link setupTemporalSchemas}).
 * @throws Error when the server exits first or is not ready within 90 s (see its log)
 */
export async function startTemporalServer(options: TemporalServerOptions): Promise<TemporalServer> {
  const started = Date.now();
  const namespace = options.namespace ?? 'default';
  const ports = await serverPorts(options.dir, options.port);
  const configDir = path.join(options.dir, 'config');
  fs.mkdirSync(configDir, { recursive: true });
  const dynamicConfigFile = path.join(configDir, 'dynamicconfig.yaml');
  fs.copyFileSync(DYNAMIC_CONFIG_FILE, dynamicConfigFile);
  // The config holds the database password: readable by this user only.
  fs.writeFileSync(
    path.join(configDir, 'development.yaml'),
    serverConfigYaml(options.target, ports, dynamicConfigFile),
    { mode: 0o600 },
  );
  fs.chmodSync(path.join(configDir, 'development.yaml'), 0o600);

  fs.mkdirSync(path.dirname(options.logFile), { recursive: true });
  const log = fs.openSync(options.logFile, 'a');
  const child = spawn(
    options.binary,
    ['--root', options.dir, '--config', 'config', '--env', 'development', '--allow-no-auth', 'start'],
    {
      stdio: ['ignore', log, log],
    },
  );
  fs.closeSync(log);
  const exited = new Promise<never>((_, reject) => {
    child.once('exit', (code, signal) =>
      reject(new Error(`the Temporal server exited (${code ?? signal}) before it was ready; see ${options.logFile}`)),
    );
  });
  exited.catch(() => undefined);
  const address = `127.0.0.1:${ports.frontend}`;
  try {
    await Promise.race([waitForPort(ports.frontend, 90_000), exited]);
    const frontendMs = Date.now() - started;
    await Promise.race([registerNamespaceAndSearchAttributes(address, namespace, 90_000), exited]);
    return {
      address,
      httpAddress: `127.0.0.1:${ports.frontendHttp}`,
      namespace,
      metricsUrl: `http://127.0.0.1:${ports.metrics}/metrics`,
      process: child,
      timings: { frontendMs, readyMs: Date.now() - started },
      stop: () => stopChild(child),
    };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

/** True when 127.0.0.1:`port` can be listened on now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * The server's ports for a start in `dir`: those of the last start (`<dir>/ports.json`) where they
 * are still free, new free ones otherwise (kept for the next start), and `frontend` when given.
 * Keeping them matters on a quick restart: the server's membership table still lists the last
 * start's services as alive for 20 s, and a new server whose services have other addresses tries to
 * join those dead ones until `maxJoinDuration` passes (here a restart took 55 s instead of 15).
 */
async function serverPorts(dir: string, frontend: number | undefined): Promise<ServerPorts> {
  const file = path.join(dir, 'ports.json');
  let last: Partial<ServerPorts> = {};
  try {
    last = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<ServerPorts>;
  } catch {
    // first start in this folder
  }
  const names: (keyof ServerPorts)[] = [
    'frontend',
    'frontendHttp',
    'frontendMembership',
    'history',
    'historyMembership',
    'matching',
    'matchingMembership',
    'worker',
    'workerMembership',
    'metrics',
  ];
  const ports = {} as ServerPorts;
  const taken = new Set<number>();
  for (const name of names) {
    const given = name === 'frontend' ? frontend : undefined;
    let port = given ?? last[name];
    if (given === undefined && port !== undefined && (taken.has(port) || !(await portFree(port)))) port = undefined;
    while (port === undefined || taken.has(port)) port = await freeServerPort();
    taken.add(port);
    ports[name] = port;
  }
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(ports, null, 2)}\n`);
  return ports;
}

/** Lowest and highest port {@link freeServerPort} picks from. */
const SERVER_PORT_RANGE = [20_000, 32_767] as const;

/**
 * A free port on 127.0.0.1 below 32768, picked at random: the server stores its services' ports in
 * `cluster_membership`, whose port column is a PostgreSQL `smallint`, so the OS's ephemeral ports
 * (32768–60999 on Linux) make it fail with "value … is out of range for type smallint".
 * @throws Error when 200 random picks were all taken
 */
export async function freeServerPort(): Promise<number> {
  const [low, high] = SERVER_PORT_RANGE;
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (await portFree(port)) return port;
  }
  throw new Error(`no free port between ${low} and ${high}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A gRPC status code of `error`, if it carries one. */
function grpcCode(error: unknown): number | undefined {
  return typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof (error as { code: unknown }).code === 'number'
    ? (error as { code: number }).code
    : undefined;
}
const NOT_FOUND = 5;
const ALREADY_EXISTS = 6;

/**
 * Registers `namespace` unless it exists, adds the custom search attributes (Keyword) it lacks, and
 * waits until the namespace is described and lists them all, retrying while the server is still
 * joining its services (UNAVAILABLE and the like) for at most `timeoutMs`.
 * @throws the last error at the deadline
 */
export async function registerNamespaceAndSearchAttributes(
  address: string,
  namespace: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const connection = await Connection.connect({ address });
  const keyword = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  try {
    for (;;) {
      try {
        try {
          await connection.workflowService.describeNamespace({ namespace });
        } catch (error) {
          if (grpcCode(error) !== NOT_FOUND) throw error;
          await connection.workflowService
            .registerNamespace({
              namespace,
              workflowExecutionRetentionPeriod: msToTs(NAMESPACE_RETENTION_DAYS * 86_400_000),
            })
            .catch((registerError: unknown) => {
              if (grpcCode(registerError) !== ALREADY_EXISTS) throw registerError;
            });
          continue;
        }
        const listed = await connection.operatorService.listSearchAttributes({ namespace });
        const missing = CUSTOM_SEARCH_ATTRIBUTES.filter((key) => !(key.name in (listed.customAttributes ?? {})));
        if (missing.length === 0) return;
        await connection.operatorService.addSearchAttributes({
          namespace,
          searchAttributes: Object.fromEntries(missing.map((key) => [key.name, keyword])),
        });
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await sleep(500);
      }
    }
  } finally {
    await connection.close();
  }
}

/** A running Temporal UI server. */
export interface TemporalUi {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts the Temporal Web UI server (`ui-server start`) on 127.0.0.1:`port` against the frontend at
 * `temporalAddress`, with its config written to `<dir>/config/development.yaml`, and resolves once
 * it answers HTTP.
 * @throws Error when it exits first or does not answer within 30 s (see its log)
 */
export async function startTemporalUi(options: {
  binary: string;
  temporalAddress: string;
  namespace: string;
  port?: number;
  dir: string;
  logFile: string;
}): Promise<TemporalUi> {
  const port = options.port ?? (await freePort());
  const configDir = path.join(options.dir, 'config');
  fs.mkdirSync(configDir, { recursive: true });
  fs.writeFileSync(
    path.join(configDir, 'development.yaml'),
    `# Written by scripts/lib/temporal-server.ts (docs/operations.md#cluster).
temporalGrpcAddress: ${quoted(options.temporalAddress)}
host: 127.0.0.1
port: ${port}
enableUi: true
defaultNamespace: ${quoted(options.namespace)}
refreshInterval: 1m
showTemporalSystemNamespace: false
notifyOnNewVersion: false
cors:
  cookieInsecure: true
  allowOrigins: []
`,
  );
  fs.mkdirSync(path.dirname(options.logFile), { recursive: true });
  const log = fs.openSync(options.logFile, 'a');
  const child = spawn(options.binary, ['--root', options.dir, '--config', 'config', '--env', 'development', 'start'], {
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  const exited = new Promise<never>((_, reject) => {
    child.once('exit', (code, signal) =>
      reject(new Error(`the Temporal UI server exited (${code ?? signal}); see ${options.logFile}`)),
    );
  });
  exited.catch(() => undefined);
  try {
    await Promise.race([waitForPort(port, 30_000), exited]);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { url: `http://127.0.0.1:${port}`, process: child, stop: () => stopChild(child) };
}
