import { escapeHtml, redirectWithToken, renderTokenPage, testIdentityId } from './test-token.render';

const TOKEN = {
  access_token: 'aaa.bbb.ccc',
  expires_in: 900,
  token_type: 'Bearer' as const,
};

describe('test token rendering', () => {
  it('derives a stable UUID v5 per application', () => {
    const id = testIdentityId('t1', 'c1');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(testIdentityId('t1', 'c1')).toBe(id);
    expect(testIdentityId('t1', 'c2')).not.toBe(id);
    expect(testIdentityId('t2', 'c1')).not.toBe(id);
  });

  it('puts the token in the fragment, keeping path and query and replacing a fragment', () => {
    const url = new URL(redirectWithToken('https://app.test/cb?state=1#old', TOKEN));
    expect(url.origin + url.pathname + url.search).toBe('https://app.test/cb?state=1');
    expect(Object.fromEntries(new URLSearchParams(url.hash.slice(1)))).toEqual({
      access_token: 'aaa.bbb.ccc',
      token_type: 'Bearer',
      expires_in: '900',
    });
  });

  it('escapes everything it shows', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;');
    const page = renderTokenPage('<t>', 'c"1', {
      ...TOKEN,
      access_token: '<script>',
    });
    expect(page).not.toContain('<script>');
    expect(page).not.toContain('<t>');
    expect(page).toContain('&#60;script&#62;');
  });
});
