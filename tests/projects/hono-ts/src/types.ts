export type Greeting = { hello: string; runtime: string };
