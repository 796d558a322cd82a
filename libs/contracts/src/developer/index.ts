export * from './developer.dto';
export * from './oauth.dto';
