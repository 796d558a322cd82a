export * from './outbox-events.env';
export * from './outbox-table';
export * from './outbox-relay.host';
export * from './outbox-relay';
