/**
 * The approval window the service worker opens for a connection or a signature request; the decision (and,
 * for a signature, the keystore password) goes back to the service worker only.
 */
import { chromeApi } from './chrome.ts';
import type { ApprovalRequest } from './router.ts';

const chrome = chromeApi();
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const id = new URLSearchParams(location.search).get('id') ?? '';

async function main(): Promise<void> {
  const request = await chrome.runtime.sendMessage<ApprovalRequest | null>({ type: 'approval:get', id });
  if (!request) {
    $('title').textContent = 'This request is no longer pending';
    $<HTMLButtonElement>('approve').disabled = true;
    return;
  }
  $('origin').textContent = request.origin;
  if (request.kind === 'connect') {
    $('title').textContent = 'Connect to this site?';
    $('what').textContent =
      `The site will see your address ${request.accounts[0] ?? ''}. It cannot move funds without asking you.`;
  } else {
    $('title').textContent = 'Sign this message?';
    $('what').textContent = `Signed by ${request.account} (EIP-191 personal_sign).`;
    $('message').hidden = false;
    $('message').textContent = request.message;
    $('password').hidden = false;
    $('password-label').hidden = false;
  }
  const decide = async (approved: boolean) => {
    const password = $<HTMLInputElement>('password').value;
    await chrome.runtime.sendMessage({
      type: 'approval:decide',
      id,
      approved,
      ...(approved && password ? { password } : {}),
    });
    window.close();
  };
  $('approve').addEventListener('click', () => void decide(true));
  $('reject').addEventListener('click', () => void decide(false));
}

void main();
