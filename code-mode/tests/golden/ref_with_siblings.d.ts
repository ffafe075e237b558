type T = {
  /** A name. */
  described?: string;
  nullableRef?: string | null;
  narrowed?: string & ("a" | "b");
};
export {};
