/**
 * The approval window the service worker opens for each request the user decides on (approval.ts): it shows
 * the origin, the labelled facts and any text block as plain text, asks for the keystore password when the
 * request signs, and sends the decision back to the service worker only. Focus starts on the title, so a
 * screen reader announces the request first; Tab then reaches the details, the password, Reject, Approve.
 */
import { APPROVAL_TITLES, type ApprovalRequest } from './approval.ts';
import { chromeApi } from './chrome.ts';

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
  render(request);
  const decide = async (approved: boolean) => {
    const password = $<HTMLInputElement>('password').value;
    if (approved && request.password && !password) {
      $('status').textContent = 'Enter your wallet password to approve.';
      $('password').focus();
      return;
    }
    await chrome.runtime.sendMessage({
      type: 'approval:decide',
      id,
      approved,
      ...(approved && password ? { password } : {}),
    });
    window.close();
  };
  $('decide').addEventListener('submit', (event) => {
    event.preventDefault();
    void decide(true);
  });
  $('reject').addEventListener('click', () => void decide(false));
}

/** Fills the window for one request; everything is set as text. */
function render(request: ApprovalRequest): void {
  document.body.dataset.kind = request.kind;
  document.title = `svckit wallet: ${APPROVAL_TITLES[request.kind]}`;
  $('title').textContent = APPROVAL_TITLES[request.kind];
  $('origin').textContent = request.origin;
  const facts = $('facts');
  facts.replaceChildren();
  for (const row of request.rows) {
    const dt = document.createElement('dt');
    dt.textContent = row.label;
    const dd = document.createElement('dd');
    dd.textContent = row.value;
    facts.append(dt, dd);
  }
  if (request.detail) {
    $('detail').hidden = false;
    $('detail-label').textContent = request.detail.label;
    $('detail-text').textContent = request.detail.text;
  }
  $('password-field').hidden = !request.password;
  $<HTMLInputElement>('password').required = request.password;
  $('title').focus();
}

void main();
