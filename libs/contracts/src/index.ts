export * from './enums';
export * from './roles';
export * from './problem';
export * from './auth';
export * from './events';
export * from './developer';
export * from './records';
export * from './user';
