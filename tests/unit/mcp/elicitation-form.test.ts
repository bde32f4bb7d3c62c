import { describe, expect, it } from "vitest";
import { checkAnswer, formFields, type ElicitationField } from "~/conversation/tool-elicitation";

/**
 * A tool server's request for input as the form the chat shows
 * (docs/decisions/095): the plain fields MCP allows are read with their
 * labels, limits and defaults; anything else makes the request one the chat
 * declines; an answer is checked field by field with words a person reads.
 */

const schema = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: "object",
  properties,
  required,
});

describe("reading a server's form", () => {
  it("reads each kind of field MCP allows, with its label, limits, choices and default", () => {
    const fields = formFields(
      schema(
        {
          name: { type: "string", title: "Your name", description: "As on your passport", minLength: 2, maxLength: 40 },
          email: { type: "string", format: "email" },
          site: { type: "string", format: "uri" },
          born: { type: "string", format: "date" },
          at: { type: "string", format: "date-time" },
          age: { type: "integer", minimum: 0, maximum: 150, default: 30 },
          ratio: { type: "number" },
          agree: { type: "boolean", default: true },
          size: { type: "string", enum: ["s", "m"], enumNames: ["Small", "Medium"] },
          hero: { type: "string", oneOf: [{ const: "h1", title: "Superman" }] },
          tags: {
            type: "array",
            items: { type: "string", enum: ["a", "b"] },
            minItems: 1,
            maxItems: 2,
            default: ["a"],
          },
          fish: { type: "array", items: { anyOf: [{ const: "f1", title: "Tuna" }] } },
        },
        ["name"],
      ),
    )!;
    expect(fields.map((field) => [field.name, field.kind, field.required])).toEqual([
      ["name", "text", true],
      ["email", "email", false],
      ["site", "url", false],
      ["born", "date", false],
      ["at", "date-time", false],
      ["age", "integer", false],
      ["ratio", "number", false],
      ["agree", "boolean", false],
      ["size", "choice", false],
      ["hero", "choice", false],
      ["tags", "choices", false],
      ["fish", "choices", false],
    ]);
    expect(fields[0]).toMatchObject({
      label: "Your name",
      description: "As on your passport",
      minLength: 2,
      maxLength: 40,
    });
    expect(fields[1].label).toBe("email");
    expect(fields[5]).toMatchObject({ minimum: 0, maximum: 150, default: 30 });
    expect(fields[7].default).toBe(true);
    expect(fields[8].options).toEqual([
      { value: "s", label: "Small" },
      { value: "m", label: "Medium" },
    ]);
    expect(fields[10]).toMatchObject({ minItems: 1, maxItems: 2, default: ["a"] });
    expect(fields[11].options).toEqual([{ value: "f1", label: "Tuna" }]);
  });

  it("drops a default that breaks the field's own rules", () => {
    const [age] = formFields(schema({ age: { type: "integer", maximum: 10, default: 99 } }))!;
    expect(age.default).toBeUndefined();
  });

  it("is no form when the schema is not a flat object of plain fields", () => {
    expect(formFields(undefined)).toBeUndefined();
    expect(formFields({ type: "array" })).toBeUndefined();
    expect(formFields(schema({ nested: { type: "object", properties: {} } }))).toBeUndefined();
    expect(formFields(schema({ list: { type: "array", items: { type: "string" } } }))).toBeUndefined();
    expect(formFields(schema({ phone: { type: "string", format: "phone" } }))).toBeUndefined();
    expect(formFields(schema({ mixed: { type: "string", enum: ["a", 1] } }))).toBeUndefined();
    const many = Object.fromEntries(Array.from({ length: 31 }, (_, at) => [`f${at}`, { type: "string" }]));
    expect(formFields(schema(many))).toBeUndefined();
  });

  it("an empty form is a form: the server asks only for a yes or no", () => {
    expect(formFields({ type: "object" })).toEqual([]);
  });
});

describe("checking an answer", () => {
  const fields = formFields(
    schema(
      {
        name: { type: "string", minLength: 2 },
        email: { type: "string", format: "email" },
        born: { type: "string", format: "date" },
        age: { type: "integer", minimum: 1, maximum: 100 },
        agree: { type: "boolean" },
        size: { type: "string", enum: ["s", "m"] },
        tags: { type: "array", items: { type: "string", enum: ["a", "b", "c"] }, maxItems: 2 },
      },
      ["name"],
    ),
  ) as ElicitationField[];

  it("turns a form's text into the fields' types and leaves out what the form does not ask", () => {
    expect(
      checkAnswer(fields, { name: "Ada", age: " 42 ", agree: "on", size: "m", tags: ["a", "a", "b"], extra: "x" }),
    ).toEqual({ content: { name: "Ada", age: 42, agree: true, size: "m", tags: ["a", "b"] } });
  });

  it("an unticked yes/no is a no; an empty optional field is left out", () => {
    expect(checkAnswer(fields, { name: "Ada", email: "", tags: [] })).toEqual({
      content: { name: "Ada", agree: false },
    });
  });

  it("says what is wrong with each field", () => {
    expect(
      checkAnswer(fields, {
        name: "A",
        email: "nobody",
        born: "31/12/1990",
        age: "4.5",
        size: "xl",
        tags: ["a", "b", "c"],
      }),
    ).toEqual({
      fieldErrors: {
        name: "Use at least 2 characters.",
        email: "Enter an email address, like name@example.com.",
        born: "Enter a date as year-month-day.",
        age: "Enter a whole number.",
        size: "Choose from the list.",
        tags: "Choose at most 2.",
      },
    });
    expect(checkAnswer(fields, {})).toEqual({ fieldErrors: { name: "This is required." } });
    expect(checkAnswer(fields, { name: "Ada", age: "0" })).toEqual({ fieldErrors: { age: "Enter 1 or more." } });
    expect(checkAnswer(fields, { name: ["Ada"] })).toEqual({ fieldErrors: { name: "Enter text." } });
  });

  it("caps text the server set no maximum for", () => {
    expect(checkAnswer(fields, { name: "x".repeat(2_001) })).toEqual({
      fieldErrors: { name: "Use at most 2000 characters." },
    });
  });
});
