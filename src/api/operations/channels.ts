/** Operations of this area; see ../operation.ts for how an operation is declared. */
export {};
