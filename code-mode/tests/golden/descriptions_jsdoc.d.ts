type T = {
  /** First line. Second line with tabs. */
  multi?: string;
  /** Ends a comment *\/ here, /* starts one, and **\/ again. */
  closer?: string;
  /** bell nul sep end */
  control?: string;
  blank?: string;
  nonString?: string;
  /** trailing star * */
  star?: string;
};
export {};
