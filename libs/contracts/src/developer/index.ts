export * from './developer.dto';
export * from './oauth.dto';
export * from './cors';
