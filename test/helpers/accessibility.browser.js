// Checks that run inside a page (injected with page.addScriptTag): plain JavaScript, because the tests'
// TypeScript has no DOM types. Each returns a list of findings; an empty list is a pass.

/** sRGB channel (0–255) to linear light, as WCAG 2 defines relative luminance. */
function linear(channel) {
  const c = channel / 255;
  return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

function luminance([r, g, b]) {
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** `rgb(…)`/`rgba(…)` as computed by the browser: [r, g, b, alpha]. */
function parse(color) {
  const parts = /rgba?\(([^)]+)\)/.exec(color);
  if (!parts) throw new Error(`a colour the check cannot read: ${color}`);
  const [r, g, b, a] = parts[1]
    .split(/[,\s/]+/)
    .filter(Boolean)
    .map(Number);
  return [r, g, b, a === undefined || Number.isNaN(a) ? 1 : a];
}

/** `top` drawn over the opaque `bottom`. */
function over(top, bottom) {
  const a = top[3];
  return [0, 1, 2].map((i) => top[i] * a + bottom[i] * (1 - a)).concat(1);
}

/** The opaque colour behind an element: its own background over its ancestors', down to the canvas. */
function backgroundOf(element) {
  const layers = [];
  for (let node = element; node; node = node.parentElement) {
    const color = parse(getComputedStyle(node).backgroundColor);
    if (color[3] > 0) layers.push(color);
    if (color[3] === 1) break;
  }
  // The canvas under everything: white in a light scheme, the browser's dark canvas otherwise.
  let result = matchMedia('(prefers-color-scheme: dark)').matches ? [18, 18, 18, 1] : [255, 255, 255, 1];
  for (const layer of layers.reverse()) result = over(layer, result);
  return result;
}

function visible(element) {
  const style = getComputedStyle(element);
  const box = element.getBoundingClientRect();
  return style.visibility !== 'hidden' && style.display !== 'none' && box.width > 0 && box.height > 0;
}

/**
 * Every piece of visible text whose contrast with what is behind it is under WCAG AA: 4.5:1, or 3:1
 * for large text (24px, or 18.66px bold). Disabled controls are exempt, as WCAG says.
 */
window.svcLowContrast = () => {
  const findings = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  for (let text = walker.nextNode(); text; text = walker.nextNode()) {
    const element = text.parentElement;
    if (!element || seen.has(element) || text.textContent.trim() === '' || !visible(element)) continue;
    seen.add(element);
    if (element.closest(':disabled')) continue;
    const style = getComputedStyle(element);
    const background = backgroundOf(element);
    const foreground = over(parse(style.color), background);
    const [light, dark] = [luminance(foreground), luminance(background)].sort((a, b) => b - a);
    const ratio = (light + 0.05) / (dark + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    const needed = large ? 3 : 4.5;
    if (ratio < needed)
      findings.push({
        text: text.textContent.trim().slice(0, 40),
        ratio: Math.round(ratio * 100) / 100,
        needed,
        color: style.color,
        background: `rgb(${background.slice(0, 3).map(Math.round).join(', ')})`,
      });
  }
  return findings;
};

/** Form controls and images a screen reader could not name: no label, no aria-label, no alt. */
window.svcUnnamed = () => {
  const findings = [];
  for (const control of document.querySelectorAll('input, select, textarea')) {
    if (control.type === 'hidden') continue;
    const named =
      control.labels?.length > 0 || control.getAttribute('aria-label') || control.getAttribute('aria-labelledby');
    if (!named) findings.push(`${control.tagName.toLowerCase()}#${control.id || '?'}`);
  }
  for (const button of document.querySelectorAll('button')) {
    if (button.textContent.trim() === '' && !button.getAttribute('aria-label')) findings.push('a button with no text');
  }
  for (const image of document.querySelectorAll('img')) {
    if (!image.getAttribute('alt')) findings.push(`img ${image.getAttribute('src')}`);
  }
  return findings;
};

/** What has the keyboard's focus, and whether the browser draws it (an outline the user can see). */
window.svcFocus = () => {
  const element = document.activeElement;
  if (!element || element === document.body) return { id: '', text: '', outlined: false };
  const style = getComputedStyle(element);
  return {
    id: element.id,
    text: element.textContent.trim().slice(0, 40),
    outlined: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
  };
};
