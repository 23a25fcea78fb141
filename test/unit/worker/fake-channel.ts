import {
  type AckChannel,
  createDelivery,
  type Delivery,
  type ReceivedMessage,
} from '../../../src/worker/ack-tracker';
import { encodeWakeUp } from '../../../src/broker/wake-up';
import { silentLogger } from '../../helpers/logger';

/** A settlement as the broker saw it. */
export interface Settlement {
  readonly tag: number;
  readonly outcome: 'ack' | 'requeue' | 'dead-letter';
}

/**
 * A channel that behaves like RabbitMQ's as far as settling goes: delivery tags count from 1 per
 * channel; settling a tag the channel does not hold (unknown, or already settled) is a protocol error
 * that closes it (PRECONDITION_FAILED); once closed, ack and nack throw, as amqplib's do.
 */
export class FakeChannel implements AckChannel {
  /** What the broker accepted, in order. */
  readonly settlements: Settlement[] = [];
  /** Protocol errors the broker answered with (each closed the channel). */
  readonly errors: string[] = [];
  private nextTag = 1;
  private readonly outstanding = new Set<number>();
  private open = true;

  /** Delivers a wake-up carrying `ids` (due now, or at `dueAt`) or a raw body, wrapped as the consumer does. */
  deliver(
    body: readonly string[] | string,
    options: { redelivered?: boolean; dueAt?: number } = {},
  ): Delivery {
    const content =
      typeof body === 'string'
        ? Buffer.from(body)
        : encodeWakeUp({ ids: body, dueAt: options.dueAt ?? Date.now() });
    const message: ReceivedMessage = {
      content,
      fields: { deliveryTag: this.nextTag++, redelivered: options.redelivered ?? false },
    };
    this.outstanding.add(message.fields.deliveryTag);
    return createDelivery(this, message, silentLogger);
  }

  /** The connection dropped: the broker requeues what was outstanding here. */
  close(): void {
    this.open = false;
    this.outstanding.clear();
  }

  get isOpen(): boolean {
    return this.open;
  }

  ack(message: ReceivedMessage): void {
    this.settle(message, 'ack');
  }

  nack(message: ReceivedMessage, allUpTo: boolean, requeue: boolean): void {
    if (allUpTo) throw new Error('the worker never nacks a range');
    this.settle(message, requeue ? 'requeue' : 'dead-letter');
  }

  private settle(message: ReceivedMessage, outcome: Settlement['outcome']): void {
    if (!this.open) throw new Error('Channel closed');
    const tag = message.fields.deliveryTag;
    if (!this.outstanding.delete(tag)) {
      this.errors.push(`PRECONDITION_FAILED - unknown delivery tag ${tag}`);
      this.close();
      return;
    }
    this.settlements.push({ tag, outcome });
  }
}
