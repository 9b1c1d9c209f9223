/**
 * pi-tui's simple components as text, for the pi-tui shim (shims.ts): Text, TruncatedText,
 * Container, Box, Spacer and Markdown implement pi's Component (`render(width): string[]`,
 * `invalidate()`), so a tool's renderCall/renderResult, a message renderer or a setFooter factory
 * can build them in QuickJS and the prelude renders them to lines (prelude/render.ts).
 *
 * Contract: lines are plain text wrapped at word boundaries to `width` cells (visibleWidth), a
 * word longer than the width broken; padding is spaces on the left and empty lines above and
 * below (no right padding: the prelude trims line ends anyway); a background function is applied
 * to each line as given (the prelude's theme makes it the identity). Markdown is shown as its
 * source text, wrapped like Text: there is no terminal to style it. Components that need a
 * terminal (Editor, Input, SelectList, Loader, Image, the TUI itself) are not here: the shim's
 * fallback refuses them by name.
 *
 * The text is CommonJS in the shim's scope: it uses visibleWidth and truncateToWidth from there.
 */
export const PI_TUI_TEXT = String.raw`
function wrapLine(line, width) {
  if (visibleWidth(line) <= width) return [line];
  const out = [];
  let cur = "";
  let w = 0;
  for (const word of line.split(/(\s+)/)) {
    if (word === "") continue;
    const ww = visibleWidth(word);
    if (w + ww <= width) {
      cur += word;
      w += ww;
      continue;
    }
    if (/^\s+$/.test(word)) {
      out.push(cur);
      cur = "";
      w = 0;
      continue;
    }
    if (cur !== "") out.push(cur.replace(/\s+$/, ""));
    let rest = word;
    while (visibleWidth(rest) > width) {
      const head = truncateToWidth(rest, width, "") || Array.from(rest)[0];
      out.push(head);
      rest = rest.slice(head.length);
    }
    cur = rest;
    w = visibleWidth(rest);
  }
  if (cur !== "") out.push(cur);
  return out;
}
function wrapText(text, width) {
  const out = [];
  for (const line of String(text).replace(/\t/g, "   ").split("\n"))
    for (const part of wrapLine(line, Math.max(1, Math.floor(width)))) out.push(part);
  return out;
}
const nonNegative = (n, fallback) => (Number.isFinite(Number(n)) && Number(n) >= 0 ? Math.floor(Number(n)) : fallback);
function padded(lines, width, px, py, bg) {
  const left = " ".repeat(px);
  const out = [];
  for (let i = 0; i < py; i++) out.push("");
  for (const line of lines) out.push(left + line);
  for (let i = 0; i < py; i++) out.push("");
  return typeof bg === "function" ? out.map((l) => String(bg(l))) : out;
}
class Text {
  constructor(text = "", paddingX = 1, paddingY = 1, customBgFn) {
    this.text = String(text);
    this.paddingX = nonNegative(paddingX, 1);
    this.paddingY = nonNegative(paddingY, 1);
    this.customBgFn = customBgFn;
  }
  setText(text) { this.text = String(text); }
  setCustomBgFn(fn) { this.customBgFn = fn; }
  invalidate() {}
  render(width) {
    if (this.text.trim() === "") return [];
    const lines = wrapText(this.text, Math.max(1, width - this.paddingX * 2));
    return padded(lines, width, this.paddingX, this.paddingY, this.customBgFn);
  }
}
class TruncatedText {
  constructor(text = "", paddingX = 0, paddingY = 0) {
    this.text = String(text);
    this.paddingX = nonNegative(paddingX, 0);
    this.paddingY = nonNegative(paddingY, 0);
  }
  invalidate() {}
  render(width) {
    const first = this.text.split("\n")[0];
    const line = truncateToWidth(first, Math.max(1, width - this.paddingX * 2));
    return padded([line], width, this.paddingX, this.paddingY);
  }
}
class Container {
  constructor() { this.children = []; }
  addChild(component) { this.children.push(component); }
  removeChild(component) {
    const i = this.children.indexOf(component);
    if (i >= 0) this.children.splice(i, 1);
  }
  clear() { this.children = []; }
  invalidate() { for (const c of this.children) if (c && typeof c.invalidate === "function") c.invalidate(); }
  render(width) {
    const out = [];
    for (const c of this.children) for (const line of c.render(width)) out.push(line);
    return out;
  }
}
class Box extends Container {
  constructor(paddingX = 1, paddingY = 1, bgFn) {
    super();
    this.paddingX = nonNegative(paddingX, 1);
    this.paddingY = nonNegative(paddingY, 1);
    this.bgFn = bgFn;
  }
  setBgFn(fn) { this.bgFn = fn; }
  render(width) {
    if (this.children.length === 0) return [];
    const inner = super.render(Math.max(1, width - this.paddingX * 2));
    return padded(inner, width, this.paddingX, this.paddingY, this.bgFn);
  }
}
class Spacer {
  constructor(lines = 1) { this.lines = nonNegative(lines, 1); }
  setLines(lines) { this.lines = nonNegative(lines, 1); }
  invalidate() {}
  render() { return new Array(this.lines).fill(""); }
}
class Markdown extends Text {
  constructor(text = "", paddingX = 1, paddingY = 1) {
    super(text, paddingX, paddingY);
  }
}
`;
