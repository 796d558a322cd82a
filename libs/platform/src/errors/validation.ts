import { ValidationError, ValidationPipe } from '@nestjs/common';
import { FieldProblem } from '@vault/contracts';
import { ProblemException } from './problem.exception';

/** Flattens nested class-validator errors into `{field, message}` with dotted paths. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldProblem[] {
  const out: FieldProblem[] = [];
  for (const e of errors) {
    const field = parent ? `${parent}.${e.property}` : e.property;
    for (const message of Object.values(e.constraints ?? {})) {
      out.push({ field, message });
    }
    if (e.children?.length) out.push(...flattenValidationErrors(e.children, field));
  }
  return out;
}

/**
 * Global pipe: unknown fields are refused (forbidNonWhitelisted), values are
 * transformed to DTO classes, and failures become a 400 problem listing fields.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const fields = flattenValidationErrors(errors);
      return ProblemException.badRequest(
        `The request has ${fields.length} invalid field${fields.length === 1 ? '' : 's'}.`,
        fields,
      );
    },
  });
}
