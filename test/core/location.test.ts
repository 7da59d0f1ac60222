/**
 * A store location's password is hidden wherever a message names it
 * (`src/core/location.ts` `redact` and `describeLocation`, docs/contract.md
 * section 12.2), on both lines: the user part's password and a `password`
 * query parameter, which the PostgreSQL driver reads as well.
 */
import { assert, describe, it } from "@effect/vitest"
import { describeLocation, locationValueProblem, redact } from "../../src/core/location.js"

describe("core/location redact", () => {
  it("hides the user part's password", () => {
    assert.strictEqual(redact("redis://:secret@cache:6379"), "redis://:***@cache:6379")
    assert.strictEqual(redact("postgres://app:secret@db:5432/app"), "postgres://app:***@db:5432/app")
  })

  it("hides a password query parameter, whatever its case, and keeps the others", () => {
    assert.strictEqual(
      redact("postgres://postgres@127.0.0.1:1/test?password=S3CRET&sslmode=disable"),
      "postgres://postgres@127.0.0.1:1/test?password=***&sslmode=disable"
    )
    assert.strictEqual(redact("postgres://a:b@c/d?Password=x"), "postgres://a:***@c/d?Password=***")
    assert.strictEqual(redact("postgres://app@db/app?sslmode=require"), "postgres://app@db/app?sslmode=require")
  })

  it("describes a PostgreSQL location without either password", () => {
    assert.strictEqual(
      describeLocation({ _tag: "Postgres", url: "postgres://app:one@db/app?password=two" }),
      "postgres://app:***@db/app?password=***"
    )
  })
})

describe("core/location locationValueProblem", () => {
  it("accepts what parseLocation gives and names parseLocation for anything else", () => {
    assert.strictEqual(locationValueProblem({ _tag: "Memory" }), undefined)
    assert.strictEqual(locationValueProblem({ _tag: "Sqlite", filename: "c.db" }), undefined)
    assert.strictEqual(locationValueProblem({ _tag: "Postgres", url: "postgres://db/test" }), undefined)
    assert.strictEqual(locationValueProblem({ _tag: "Redis", url: "redis://cache:6379" }), undefined)
    assert.deepStrictEqual(locationValueProblem("sqlite:c.db"), {
      option: "location",
      description:
        "expected a location read by parseLocation (ConversationStore.parseLocation(\"sqlite:c.db\")), got a string"
    })
    assert.deepStrictEqual(locationValueProblem(undefined), {
      option: "location",
      description: "expected a location read by parseLocation, got undefined"
    })
    assert.deepStrictEqual(locationValueProblem({ _tag: "Sqlite" }), {
      option: "location",
      description: "expected a location read by parseLocation, got object"
    })
  })
})
