/** Vitest set-up for every test file: what jsdom lacks and the components use. */
import { configure } from '@testing-library/react';

// jsdom has no modal dialogs: showModal and close only toggle the `open` attribute.
HTMLDialogElement.prototype.showModal = function showModal(this: HTMLDialogElement) {
  this.setAttribute('open', '');
};
HTMLDialogElement.prototype.close = function close(this: HTMLDialogElement) {
  this.removeAttribute('open');
};

// findBy* and waitFor resolve as soon as what they wait for happens; their limit only decides
// when a test gives up. Testing Library's default of 1 s failed on a loaded CI machine (a lazily
// imported module took longer), so the limit is generous (and vite.config.ts gives each test
// 30 s) and no test depends on wall-clock speed.
configure({ asyncUtilTimeout: 15_000 });
