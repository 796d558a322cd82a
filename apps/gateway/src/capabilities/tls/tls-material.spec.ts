import { subjectAltNames } from './tls-material';

describe('subjectAltNames', () => {
  it('covers localhost, the module hosts and the domain without repeats', () => {
    expect(subjectAltNames('localhost', ['user-api.localhost'])).toEqual(['localhost', '*.localhost', 'user-api.localhost']);
    expect(subjectAltNames('vault.example.com', ['user-api.vault.example.com'])).toEqual([
      'localhost',
      '*.localhost',
      'user-api.vault.example.com',
      'vault.example.com',
      '*.vault.example.com',
    ]);
  });
});
