/** Migrations of user-service in order, imported as classes (the app is bundled). */
export const MIGRATIONS: Function[] = [];
