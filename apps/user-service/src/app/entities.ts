/** Every TypeORM entity of user-service, imported as classes (the app is bundled). */
export const ENTITIES: Function[] = [];
