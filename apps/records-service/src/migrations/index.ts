/** Migrations of records-service in order, imported as classes (the app is bundled). */
export const MIGRATIONS: Function[] = [];
