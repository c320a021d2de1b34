// The hashes tool-loop detection compares, as the public `loopguard/hashing` module: agent
// runners that send hashes instead of raw values compute them with these same functions, so both
// sides agree byte for byte. §2.2's rules (hashRules.ts), the openclaw profile's view of an
// outcome (§6), and the early preset's identities and progress hashes (§7).
export * from './hashRules.js';

// The openclaw profile's hashing (§6), for runners that hash and whose runs follow it.
export { openclawOutcome, type OpenclawOutcome, type OpenclawOutcomeInput } from './openclaw/hashing.js';

// Call identity (§7.1, §7.2) and the early preset's progress hash (§7.3), for runners that hash.
export { callIdentity as earlyIdentity, keyedArgsHash } from './early/identity.js';
export { progressHash as earlyProgressHash } from './early/progress.js';
