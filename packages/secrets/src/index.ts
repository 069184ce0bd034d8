export { needsReseal, open, seal } from "./envelope";
export type { Kek } from "./envelope";
