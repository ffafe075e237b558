type T = {
  missing: unknown;
  throughScalar?: unknown;
  remote?: unknown;
  relative?: unknown;
  anchor?: unknown;
  notString?: unknown;
};
export {};
