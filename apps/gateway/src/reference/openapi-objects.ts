import type { OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";

/**
 * The OpenAPI 3.1 object types (openapi3-ts's) of the document the gateway generates, for the
 * code that reads it: the reference's examples, and the quick start's check that sends them.
 * zod-to-openapi depends on openapi3-ts but does not re-export its types, and openapi3-ts is not
 * ours to import, so they are reached through the generator's own signature.
 */
export type OpenAPIObject = ReturnType<OpenApiGeneratorV31["generateDocument"]>;
export type PathItemObject = NonNullable<OpenAPIObject["paths"]>[string];
export type OperationObject = NonNullable<PathItemObject["get"]>;
type ParameterOrReference = NonNullable<OperationObject["parameters"]>[number];
export type ReferenceObject = Extract<ParameterOrReference, { $ref: string }>;
export type ParameterObject = Exclude<ParameterOrReference, ReferenceObject>;
export type RequestBodyObject = Exclude<NonNullable<OperationObject["requestBody"]>, ReferenceObject>;
export type MediaTypeObject = RequestBodyObject["content"][string];
export type ExampleObject = Exclude<NonNullable<MediaTypeObject["examples"]>[string], ReferenceObject>;
/** openapi3-ts types a status's response as `any`; this is what it is. */
export type ResponseObject = Exclude<NonNullable<OperationObject["responses"]>["default"], ReferenceObject | undefined>;

/** The methods whose operations carry examples, in the document's order. */
export const EXAMPLE_METHODS = ["get", "put", "post", "delete", "patch"] as const;

/** Whether `o` points elsewhere in the document (`$ref`) instead of being the object itself. */
export const isReference = (o: object): o is ReferenceObject => "$ref" in o;

/** An operation's responses by status, typed as what they are. */
export const responsesOf = (operation: OperationObject): [string, ResponseObject | ReferenceObject][] => Object.entries(operation.responses ?? {});
