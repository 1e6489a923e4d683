import { Schema } from "effect"

/** The CRM v3 object types the sales team keeps: HubSpot's names. */
export const CrmObjectType = Schema.Literal("companies", "contacts")
export type CrmObjectType = typeof CrmObjectType.Type

export const CrmProperties = Schema.Record({ key: Schema.String, value: Schema.NullOr(Schema.String) })
export type CrmProperties = typeof CrmProperties.Type

export const AssociationRef = Schema.Struct({ id: Schema.String, type: Schema.String })

/** A CRM v3 object as HubSpot returns it (`SimplePublicObject`). */
export const CrmObject = Schema.Struct({
  id: Schema.String,
  properties: CrmProperties,
  createdAt: Schema.String,
  updatedAt: Schema.String,
  archived: Schema.Boolean,
  associations: Schema.optional(Schema.Record({
    key: Schema.String,
    value: Schema.Struct({ results: Schema.Array(AssociationRef) })
  }))
})
export type CrmObject = typeof CrmObject.Type

export const FilterOperator = Schema.Literal("EQ", "IN")

export const Filter = Schema.Struct({
  propertyName: Schema.String,
  operator: FilterOperator,
  value: Schema.optional(Schema.String),
  values: Schema.optional(Schema.Array(Schema.String))
})
export type Filter = typeof Filter.Type

export const SearchRequest = Schema.Struct({
  filterGroups: Schema.Array(Schema.Struct({ filters: Schema.Array(Filter) })),
  properties: Schema.optional(Schema.Array(Schema.String)),
  limit: Schema.optional(Schema.Int),
  after: Schema.optional(Schema.String)
})
export type SearchRequest = typeof SearchRequest.Type

export const SearchResponse = Schema.Struct({
  total: Schema.Int,
  results: Schema.Array(CrmObject),
  paging: Schema.optional(Schema.Struct({ next: Schema.Struct({ after: Schema.String }) }))
})
export type SearchResponse = typeof SearchResponse.Type

export const AssociationInput = Schema.Struct({
  to: Schema.Struct({ id: Schema.String }),
  types: Schema.Array(Schema.Struct({ associationCategory: Schema.String, associationTypeId: Schema.Int }))
})

export const UpsertInput = Schema.Struct({
  idProperty: Schema.String,
  id: Schema.String,
  properties: CrmProperties,
  associations: Schema.optional(Schema.Array(AssociationInput))
})
export type UpsertInput = typeof UpsertInput.Type

export const BatchUpsertRequest = Schema.Struct({ inputs: Schema.Array(UpsertInput) })
export type BatchUpsertRequest = typeof BatchUpsertRequest.Type

export const UpsertResult = Schema.Struct({ ...CrmObject.fields, new: Schema.Boolean })
export type UpsertResult = typeof UpsertResult.Type

/** One failed input of a batch (HubSpot's `StandardError`); `context.id` names the input by its idProperty value. */
export const BatchError = Schema.Struct({
  status: Schema.Literal("error"),
  category: Schema.String,
  message: Schema.String,
  context: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) }))
})
export type BatchError = typeof BatchError.Type

export const BatchResponse = Schema.Struct({
  status: Schema.Literal("PENDING", "PROCESSING", "CANCELED", "COMPLETE"),
  results: Schema.Array(UpsertResult),
  numErrors: Schema.optional(Schema.Int),
  errors: Schema.optional(Schema.Array(BatchError)),
  startedAt: Schema.String,
  completedAt: Schema.String
})
export type BatchResponse = typeof BatchResponse.Type

/** HubSpot's v4 batch read of associations (`POST /crm/v4/associations/{from}/{to}/batch/read`): the objects asked about. */
export const AssociationsReadRequest = Schema.Struct({ inputs: Schema.Array(Schema.Struct({ id: Schema.String })) })
export type AssociationsReadRequest = typeof AssociationsReadRequest.Type

/** The object each input is linked to; an input linked to nothing has no result (HubSpot names it in `errors`). */
export const AssociationsReadResponse = Schema.Struct({
  status: Schema.Literal("PENDING", "PROCESSING", "CANCELED", "COMPLETE"),
  results: Schema.Array(Schema.Struct({
    from: Schema.Struct({ id: Schema.String }),
    to: Schema.Array(Schema.Struct({
      toObjectId: Schema.Union(Schema.Number, Schema.String),
      associationTypes: Schema.Array(Schema.Struct({
        category: Schema.String,
        typeId: Schema.Int,
        label: Schema.optional(Schema.NullOr(Schema.String))
      }))
    }))
  })),
  errors: Schema.optional(Schema.Array(BatchError))
})
export type AssociationsReadResponse = typeof AssociationsReadResponse.Type

/** HubSpot's error body: 400, 401, 404, 429, 5xx. */
export const ErrorBody = Schema.Struct({
  status: Schema.Literal("error"),
  message: Schema.String,
  correlationId: Schema.String,
  category: Schema.optional(Schema.String),
  errorType: Schema.optional(Schema.String),
  policyName: Schema.optional(Schema.String)
})
export type ErrorBody = typeof ErrorBody.Type

/**
 * HubSpot's documented ceilings: 100 inputs per batch, 100 values per IN, 5 groups of 6 filters, 200 results a page,
 * 1,000 inputs per batch read of associations.
 */
export const CRM_LIMITS = {
  batchInputs: 100,
  inValues: 100,
  filterGroups: 5,
  filtersPerGroup: 6,
  pageSize: 200,
  associationInputs: 1000
} as const
