declare const tools: {
  /** Echoes back the input string */
  echo(args: {
    /** Message to echo */
    message: string;
  }): Promise<string>;
  /** Demonstrates how annotations can be used to provide metadata about content. */
  "get-annotated-message"(args: {
    /** Type of message to demonstrate different annotation patterns */
    messageType: "error" | "success" | "debug";
    /** Whether to include an example image */
    includeImage?: boolean;
  }): Promise<string>;
  /** Returns all environment variables, helpful for debugging MCP server configuration */
  "get-env"(args?: { [key: string]: unknown }): Promise<string>;
  /** Returns up to ten resource links that reference different types of resources */
  "get-resource-links"(args?: {
    /** Number of resource links to return (1-10) */
    count?: number;
  }): Promise<string>;
  /** Returns a resource reference that can be used by MCP clients */
  "get-resource-reference"(args?: {
    resourceType?: "Text" | "Blob";
    /** ID of the text resource to fetch */
    resourceId?: number;
  }): Promise<string>;
  /** Returns structured content along with an output schema for client data validation */
  "get-structured-content"(args: {
    /** Choose city */
    location: "New York" | "Chicago" | "Los Angeles";
  }): Promise<{
    /** Temperature in celsius */
    temperature: number;
    /** Weather conditions description */
    conditions: string;
    /** Humidity percentage */
    humidity: number;
  }>;
  /** Returns the sum of two numbers */
  "get-sum"(args: {
    /** First number */
    a: number;
    /** Second number */
    b: number;
  }): Promise<string>;
  /** Returns a tiny MCP logo image. */
  "get-tiny-image"(args?: { [key: string]: unknown }): Promise<string>;
  /** Compresses a single file using gzip compression. Depending upon the selected output type, returns either the compressed data as a gzipped resource or a resource link, allowing it to be downloaded in a subsequent request during the current session. */
  "gzip-file-as-resource"(args?: {
    /** Name of the output file */
    name?: string;
    /** URL or data URI of the file content to compress */
    data?: string;
    /** How the resulting gzipped file should be returned. 'resourceLink' returns a link to a resource that can be read later, 'resource' returns a full resource object. */
    outputType?: "resourceLink" | "resource";
  }): Promise<string>;
  /** Simulates a deep research operation that gathers, analyzes, and synthesizes information. Demonstrates MCP task-based operations with progress through multiple stages. If 'ambiguous' is true and client supports elicitation, sends an elicitation request for clarification. */
  "simulate-research-query"(args: {
    /** The research topic to investigate */
    topic: string;
    /** Simulate an ambiguous query that requires clarification (triggers input_required status) */
    ambiguous?: boolean;
  }): Promise<string>;
  /** Toggles simulated, random-leveled logging on or off. */
  "toggle-simulated-logging"(args?: { [key: string]: unknown }): Promise<string>;
  /** Toggles simulated resource subscription updates on or off. */
  "toggle-subscriber-updates"(args?: { [key: string]: unknown }): Promise<string>;
  /** Demonstrates a long running operation with progress updates. */
  "trigger-long-running-operation"(args?: {
    /** Duration of the operation in seconds */
    duration?: number;
    /** Number of steps in the operation */
    steps?: number;
  }): Promise<string>;
};
export {};
