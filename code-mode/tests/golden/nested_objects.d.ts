type T = {
  /** Level 2. */
  level1: {
    /** Level 3. */
    level2: {
      /** Level 4. */
      level3: {
        /** Level 5. */
        level4: {
          /** Level 6. */
          level5: {
            level6: string;
            n?: number;
          };
          n?: number;
        };
        n?: number;
      };
      n?: number;
    };
    n?: number;
  };
  n?: number;
};
export {};
