export * from './log.dto';
