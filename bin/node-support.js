// Which Node.js versions run this program: checked first thing by bin/picks.js, in syntax any Node.js
// that can load an ES module understands, so an unsupported version gets one clear line, not a crash
// deep inside a dependency. The same ranges as `engines` in package.json.

/** Supported: 20.19 or later 20.x, 22.12 or later 22.x (both load ES modules with require), 24, 26. */
export const SUPPORTED_NODE = "20.19+, 22.12+, 24 or 26";

/**
 * Null when `version` (such as process.versions.node, "26.10.0") is supported, otherwise the line
 * to print.
 * @example unsupportedNode("18.20.4") // "picks: Node.js 18.20.4 is not supported; ..."
 */
export function unsupportedNode(version) {
  const [major, minor] = String(version).split(".").map(Number);
  const supported =
    (major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major === 24 || major === 26;
  return supported
    ? null
    : `picks: Node.js ${version} is not supported; use Node.js ${SUPPORTED_NODE} (26 is the active LTS)`;
}
