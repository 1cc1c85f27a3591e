// A section's own stylesheet, added when its module loads, so that style.css carries only what the
// first view shows. The site's policy (style-src 'self') allows a <link> to one of its own files.

const added = new Map();

/** Adds `assets/<name>` once; resolves when it has loaded, or failed (the section then shows plainer). */
export function stylesheet(name) {
  let pending = added.get(name);
  if (!pending) {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = new URL(name, import.meta.url).href;
    pending = new Promise((resolve) => {
      link.addEventListener("load", resolve, { once: true });
      link.addEventListener("error", resolve, { once: true });
    });
    document.head.append(link);
    added.set(name, pending);
  }
  return pending;
}
