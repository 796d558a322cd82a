export * from './file-events';
export * from './log.dto';
