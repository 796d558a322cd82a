export * from './developer.dto';
