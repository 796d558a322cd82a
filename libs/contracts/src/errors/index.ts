export * from './entry';
export * from './common';
export * from './gateway';
export * from './developer';
export * from './user';
export * from './records';
export * from './trash';
export * from './catalogue';
