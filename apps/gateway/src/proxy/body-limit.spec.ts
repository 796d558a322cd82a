import { bodyLimitFor, declaresTooMuch, describeLimit, isJsonMediaType } from './body-limit';

describe('body limits', () => {
  it('recognises JSON media types', () => {
    for (const t of ['application/json', 'Application/JSON; charset=utf-8', 'application/problem+json', 'application/merge-patch+json']) {
      expect(isJsonMediaType(t)).toBe(true);
    }
    for (const t of [undefined, '', 'text/plain', 'multipart/form-data; boundary=x', 'application/jsonp', 'application/x-www-form-urlencoded']) {
      expect(isJsonMediaType(t)).toBe(false);
    }
  });

  it('picks the JSON limit for JSON bodies and the upload ceiling for the rest', () => {
    const limits = { json: 10, other: 1000 };
    expect(bodyLimitFor({ 'content-type': 'application/json' }, limits)).toBe(10);
    expect(bodyLimitFor({ 'content-type': 'image/png' }, limits)).toBe(1000);
    expect(bodyLimitFor({}, limits)).toBe(1000);
  });

  it('compares the declared length with the limit', () => {
    expect(declaresTooMuch({ 'content-length': '11' }, 10)).toBe(true);
    expect(declaresTooMuch({ 'content-length': '10' }, 10)).toBe(false);
    expect(declaresTooMuch({}, 10)).toBe(false);
  });

  it('describes the limit', () => {
    expect(describeLimit(1024, true)).toBe('The request body exceeds the gateway limit of 1024 bytes for JSON.');
    expect(describeLimit(5, false)).toBe('The request body exceeds the gateway limit of 5 bytes.');
  });
});
