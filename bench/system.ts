/**
 * What every benchmarked system implements. The orchestrator (bench/run.ts) drives each one through the
 * same scenarios and counts what arrived from the WeChat simulator's record, never from the system itself.
 */

/** One follow-up to deliver: a text custom message whose content is `tag` (unique per run). */
export interface BenchMessage {
  readonly tag: string;
  readonly openid: string;
  /** When it falls due, epoch ms. */
  readonly dueAt: number;
  /** Cancellation group, for the by-key cancellation scenario. */
  readonly cancelKey?: string;
}

/** Where the shared services are, and the WeChat account the simulator knows. */
export interface BenchEnv {
  readonly databaseUrl: string;
  readonly rabbitmqUrl: string;
  readonly redisUrl: string;
  /** Base URL of the WeChat simulator (its /cgi-bin/stable_token and /cgi-bin/message/custom/send). */
  readonly simUrl: string;
  readonly appId: string;
  readonly secret: string;
  /** Worker processes each system gets (the same for all). */
  readonly workers: number;
  /** Absolute path of the compiled bench directory (where the worker entry points are). */
  readonly benchDir: string;
}

export interface SystemUnderTest {
  /** Shown in the table, with the version: `BullMQ 6.7.0`. */
  readonly name: string;
  /** Its tuning, stated in the report: concurrency, batch sizes, pools. */
  readonly settings: string;
  /** The RabbitMQ node it uses, for `rabbitmqctl -n`, when not this machine's default node. */
  readonly rabbitmqNode?: string;
  /**
   * Starts from empty (its own fresh queue / schema / keys) with `env.workers` worker processes consuming.
   * Resolves once the workers are ready to take due messages.
   */
  start(): Promise<void>;
  /**
   * The front door: resolves once every message is durably accepted (committed / acknowledged by the
   * store), returning the system's id for each, in order. Called with chunks; may be called concurrently.
   */
  schedule(messages: readonly BenchMessage[]): Promise<string[]>;
  /**
   * One message through the system's own single-message call (the way other backends schedule one
   * reminder): resolves once it is durably accepted, with its id.
   */
  scheduleOne?(message: BenchMessage): Promise<string>;
  /** What `scheduleOne` calls, for the report: `POST /v1/messages`, `queue.add`. */
  readonly singleCall?: string;
  /**
   * Cancels by the ids `schedule` returned, in bulk (the system's own many-ids call); resolves once the
   * cancellation is durable, with the ids the system says will never be sent (cancelled now or before).
   */
  cancelById(ids: readonly string[]): Promise<string[]>;
  /** Cancels one message by id, the way one reminder is called off; true when it will never be sent. */
  cancelOne(id: string): Promise<boolean>;
  /** Cancels every message scheduled with this cancelKey. */
  cancelByKey(key: string): Promise<void>;
  /** Stops the workers and deletes everything it created (queues, keys, schema). */
  stop(): Promise<void>;
}
