export * from './features';
export * from './read-only-echoes';
export * from './vault.dto';
export * from './record.dto';
export * from './records.types';
export * from './events';
export * from './file-contracts';
export * from './collaborator.dto';
