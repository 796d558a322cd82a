export * from './file-dto';
export * from './file-events';
