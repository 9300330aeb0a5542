/** Vitest set-up for every test file: what jsdom lacks and the components use. */

// jsdom has no modal dialogs: showModal and close only toggle the `open` attribute.
HTMLDialogElement.prototype.showModal = function showModal(this: HTMLDialogElement) {
  this.setAttribute('open', '');
};
HTMLDialogElement.prototype.close = function close(this: HTMLDialogElement) {
  this.removeAttribute('open');
};
