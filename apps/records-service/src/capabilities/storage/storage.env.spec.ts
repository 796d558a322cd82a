import { EnvValidationError, loadEnv } from '@vault/platform/config';
import { FilesEnv } from './storage.env';

describe('FilesEnv', () => {
  const problemsOf = (source: Record<string, string>): string[] => {
    try {
      loadEnv(FilesEnv, source);
      return [];
    } catch (err) {
      if (!(err instanceof EnvValidationError)) throw err;
      return err.problems;
    }
  };

  it('keeps unconfirmed upload bytes for a day by default', () => {
    expect(loadEnv(FilesEnv, {}).FILE_UPLOAD_GRACE_SECONDS).toBe(86_400);
  });

  it.each(['60', '3600', '86399'])(
    'refuses a FILE_UPLOAD_GRACE_SECONDS of %s, shorter than a slow upload may stream',
    (value) => {
      const problems = problemsOf({ FILE_UPLOAD_GRACE_SECONDS: value });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^FILE_UPLOAD_GRACE_SECONDS: .*86400/);
    },
  );

  it('accepts a day or more', () => {
    expect(loadEnv(FilesEnv, { FILE_UPLOAD_GRACE_SECONDS: '86400' }).FILE_UPLOAD_GRACE_SECONDS).toBe(86_400);
    expect(loadEnv(FilesEnv, { FILE_UPLOAD_GRACE_SECONDS: '172800' }).FILE_UPLOAD_GRACE_SECONDS).toBe(172_800);
  });
});
