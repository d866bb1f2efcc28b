/** The binding a rendered page reports a refused window through (exposed by the renderer). */
export const POPUP_BINDING = '__trawlRefusedWindow';

/**
 * Runs in every frame before its scripts: nothing the page does opens a window. `window.open`
 * answers null, and links, areas and forms aimed at another browsing context (`target`,
 * `formtarget`, `<base target>`) are refused before the click or submit is acted on, so no request
 * leaves for a popup. Each refusal is reported to the renderer. A string, not a function: bundlers
 * and tsx wrap named functions in helpers the page does not have.
 */
export const REFUSE_WINDOWS = `(() => {
  const report = () => { try { window[${JSON.stringify(POPUP_BINDING)}]?.(); } catch {} };
  const own = new Set(['', '_self', '_parent', '_top']);
  const elsewhere = (el, attr) => !!el && el.hasAttribute(attr) && !own.has((el.getAttribute(attr) || '').toLowerCase());
  const baseElsewhere = () => elsewhere(document.querySelector('base[target]'), 'target');
  window.open = () => { report(); return null; };
  document.addEventListener('click', (event) => {
    const link = event.target && event.target.closest ? event.target.closest('a[href], area[href]') : null;
    if (link && (elsewhere(link, 'target') || (!link.hasAttribute('target') && baseElsewhere()))) {
      event.preventDefault();
      event.stopImmediatePropagation();
      report();
    }
  }, true);
  const aimedElsewhere = (form, submitter) =>
    (submitter && elsewhere(submitter, 'formtarget')) || elsewhere(form, 'target') || (!form.hasAttribute('target') && baseElsewhere());
  document.addEventListener('submit', (event) => {
    if (aimedElsewhere(event.target, event.submitter)) { event.preventDefault(); event.stopImmediatePropagation(); report(); }
  }, true);
  const submit = HTMLFormElement.prototype.submit;
  HTMLFormElement.prototype.submit = function () {
    if (aimedElsewhere(this)) { report(); return; }
    return submit.call(this);
  };
})();`;
