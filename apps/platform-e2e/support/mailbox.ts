import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { setupValue } from './client';

/** Reads the newest local-mode mail (.eml in MAIL_DIR) sent to `to`, waiting up to timeoutMs. */
export async function latestMailTo(to: string, since: number, timeoutMs = 5000): Promise<string> {
  const dir = path.join(setupValue('E2E_WORK_DIR'), 'mail');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let files: string[] = [];
    try {
      files = readdirSync(dir).filter((f) => f.endsWith('.eml'));
    } catch {
      /* folder not made yet */
    }
    const matching = files
      .map((f) => path.join(dir, f))
      .filter((f) => statSync(f).mtimeMs >= since)
      .map((f) => ({ f, text: readFileSync(f, 'utf8') }))
      .filter(({ text }) => text.toLowerCase().includes(to.toLowerCase()))
      .sort((a, b) => statSync(b.f).mtimeMs - statSync(a.f).mtimeMs);
    if (matching.length > 0) return matching[0].text;
    if (Date.now() > deadline) throw new Error(`no mail to ${to} in ${dir}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
