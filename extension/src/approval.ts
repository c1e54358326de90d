/**
 * What the approval window (approve.html) shows for each kind of request: labelled facts in order, an
 * optional block of text, and whether approving asks for the keystore password. Built by the router, so the
 * window only renders text (never HTML from a page).
 */

/** The kinds of request the user decides on. */
export type ApprovalKind = 'connect' | 'sign' | 'send' | 'signTransaction' | 'typedData' | 'addChain' | 'session';

/** One labelled fact. */
export interface ApprovalRow {
  label: string;
  value: string;
}

/** A request the user decides on in approve.html. */
export interface ApprovalRequest {
  kind: ApprovalKind;
  /** The browser-reported origin of the page asking. */
  origin: string;
  rows: ApprovalRow[];
  /** A block of text shown as is (a message, typed data, call data). */
  detail?: { label: string; text: string };
  /** True when approving opens the keystore (the window asks for the password). */
  password: boolean;
}

/** The user's answer. */
export interface ApprovalDecision {
  approved: boolean;
  password?: string;
}

/** Window titles per kind. */
export const APPROVAL_TITLES: Readonly<Record<ApprovalKind, string>> = Object.freeze({
  connect: 'Connect to this site?',
  sign: 'Sign this message?',
  send: 'Send this transaction?',
  signTransaction: 'Sign this transaction?',
  typedData: 'Sign this typed data?',
  addChain: 'Add this network?',
  session: 'Give this site a session with your wallet identity?',
});
