/** Every TypeORM entity of records-service, imported as classes (the app is bundled). */
export const ENTITIES: Function[] = [];
