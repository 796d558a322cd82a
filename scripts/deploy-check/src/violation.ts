/** One broken rule: where (file, object or service), which rule, and what is wrong. */
export interface Violation {
  where: string;
  rule: string;
  message: string;
}

export function violation(where: string, rule: string, message: string): Violation {
  return { where, rule, message };
}

export function formatViolation(v: Violation): string {
  return `${v.where}: [${v.rule}] ${v.message}`;
}
