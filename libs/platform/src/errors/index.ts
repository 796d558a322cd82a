/** Problems: ProblemException, the problem body and its one filter, validation, unique violations. */
export * from './problem.exception';
export * from './problem-body';
export * from './problem.filter';
export * from './unique-violation';
export * from './validation';
export * from './storable-text.pipe';
