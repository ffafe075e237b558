declare const tools: {
  /** Add new observations to existing entities in the knowledge graph */
  add_observations(args: {
    observations: {
      /** The name of the entity to add the observations to */
      entityName: string;
      /** An array of observation contents to add */
      contents: string[];
    }[];
  }): Promise<{
    results: {
      entityName: string;
      addedObservations: string[];
    }[];
  }>;
  /** Create multiple new entities in the knowledge graph */
  create_entities(args: {
    entities: {
      /** The name of the entity */
      name: string;
      /** The type of the entity */
      entityType: string;
      /** An array of observation contents associated with the entity */
      observations: string[];
    }[];
  }): Promise<{
    entities: {
      /** The name of the entity */
      name: string;
      /** The type of the entity */
      entityType: string;
      /** An array of observation contents associated with the entity */
      observations: string[];
    }[];
  }>;
  /** Create multiple new relations between entities in the knowledge graph. Relations should be in active voice */
  create_relations(args: {
    relations: {
      /** The name of the entity where the relation starts */
      from: string;
      /** The name of the entity where the relation ends */
      to: string;
      /** The type of the relation */
      relationType: string;
    }[];
  }): Promise<{
    relations: {
      /** The name of the entity where the relation starts */
      from: string;
      /** The name of the entity where the relation ends */
      to: string;
      /** The type of the relation */
      relationType: string;
    }[];
  }>;
  /** Delete multiple entities and their associated relations from the knowledge graph */
  delete_entities(args: {
    /** An array of entity names to delete */
    entityNames: string[];
  }): Promise<{
    success: boolean;
    message: string;
  }>;
  /** Delete specific observations from entities in the knowledge graph */
  delete_observations(args: {
    deletions: {
      /** The name of the entity containing the observations */
      entityName: string;
      /** An array of observations to delete */
      observations: string[];
    }[];
  }): Promise<{
    success: boolean;
    message: string;
  }>;
  /** Delete multiple relations from the knowledge graph */
  delete_relations(args: {
    /** An array of relations to delete */
    relations: {
      /** The name of the entity where the relation starts */
      from: string;
      /** The name of the entity where the relation ends */
      to: string;
      /** The type of the relation */
      relationType: string;
    }[];
  }): Promise<{
    success: boolean;
    message: string;
  }>;
  /** Open specific nodes in the knowledge graph by their names */
  open_nodes(args: {
    /** An array of entity names to retrieve */
    names: string[];
  }): Promise<{
    entities: {
      /** The name of the entity */
      name: string;
      /** The type of the entity */
      entityType: string;
      /** An array of observation contents associated with the entity */
      observations: string[];
    }[];
    relations: {
      /** The name of the entity where the relation starts */
      from: string;
      /** The name of the entity where the relation ends */
      to: string;
      /** The type of the relation */
      relationType: string;
    }[];
  }>;
  /** Read the entire knowledge graph */
  read_graph(args?: { [key: string]: unknown }): Promise<{
    entities: {
      /** The name of the entity */
      name: string;
      /** The type of the entity */
      entityType: string;
      /** An array of observation contents associated with the entity */
      observations: string[];
    }[];
    relations: {
      /** The name of the entity where the relation starts */
      from: string;
      /** The name of the entity where the relation ends */
      to: string;
      /** The type of the relation */
      relationType: string;
    }[];
  }>;
  /** Search for nodes in the knowledge graph based on a query */
  search_nodes(args: {
    /** The search query to match against entity names, types, and observation content */
    query: string;
  }): Promise<{
    entities: {
      /** The name of the entity */
      name: string;
      /** The type of the entity */
      entityType: string;
      /** An array of observation contents associated with the entity */
      observations: string[];
    }[];
    relations: {
      /** The name of the entity where the relation starts */
      from: string;
      /** The name of the entity where the relation ends */
      to: string;
      /** The type of the relation */
      relationType: string;
    }[];
  }>;
};
export {};
