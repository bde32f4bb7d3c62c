import { describe, expect, it } from "vitest";
import { convertUnits, supportedUnits, UNIT_CATEGORIES, type Conversion } from "../../../app/llm/units";

function converted(value: number | string, from: string, to: string): Conversion {
  const outcome = convertUnits(value, from, to);
  if ("error" in outcome) throw new Error(`expected ${value} ${from} -> ${to} to convert, got: ${outcome.error}`);
  return outcome;
}

function errorOf(value: number, from: string, to: string): string {
  const outcome = convertUnits(value, from, to);
  if (!("error" in outcome)) throw new Error(`expected an error, got ${outcome.text}`);
  return outcome.error;
}

describe("convertUnits: exact conversions", () => {
  it.each([
    [1, "mi", "km", "1.609344"],
    [5, "miles", "kilometers", "8.04672"],
    [0.1, "m", "cm", "10"],
    [1, "in", "mm", "25.4"],
    [1, "lb", "kg", "0.45359237"],
    [1, "kg", "g", "1000"],
    [1, "gal", "l", "3.785411784"],
    [1, "imp gal", "l", "4.54609"],
    [1, "cup", "ml", "236.5882365"],
    [36, "km/h", "m/s", "10"],
    [1, "kn", "km/h", "1.852"],
    [1, "acre", "m2", "4046.8564224"],
    [1, "sq ft", "m^2", "0.09290304"],
    [2, "hours", "min", "120"],
    [1, "yr", "d", "365.25"],
    [1, "GiB", "GB", "1.073741824"],
    [1, "GB", "GiB", "0.931322574615478515625"],
    [1, "bit", "B", "0.125"],
    [1, "Gbit", "MB", "125"],
  ])("%s %s = %s %s", (value, from, to, expected) => {
    const conversion = converted(value, from, to);
    expect(conversion.result).toBe(expected);
    expect(conversion.approximate).toBe(false);
  });

  it("converts between temperature scales through their zero points", () => {
    expect(converted(212, "°F", "°C").result).toBe("100");
    expect(converted(100, "C", "F").result).toBe("212");
    expect(converted(98.6, "fahrenheit", "celsius").result).toBe("37");
    expect(converted(-40, "degC", "degF").result).toBe("-40");
    expect(converted(0, "K", "°C").result).toBe("-273.15");
    expect(converted(32, "°F", "K").result).toBe("273.15");
  });

  it("rounds non-terminating answers to 15 significant digits and says so", () => {
    const mph = converted(100, "km/h", "mph");
    expect(mph.result).toBe("62.1371192237334");
    expect(mph.approximate).toBe(true);
    expect(mph.text).toBe("100 km/h ≈ 62.1371192237334 mph");
    expect(converted(1, "ft", "yd").result).toBe("0.333333333333333");
  });

  it("describes the answer with canonical symbols", () => {
    expect(converted(1, "MILES", "Kilometres")).toEqual({
      category: "length",
      value: "1",
      fromUnit: "mi",
      result: "1.609344",
      toUnit: "km",
      approximate: false,
      text: "1 mi = 1.609344 km",
    });
  });

  it("takes exact decimal strings as values", () => {
    expect(converted("0.1", "kg", "g").result).toBe("100");
  });
});

describe("convertUnits: errors", () => {
  it("names unknown units and lists the supported ones", () => {
    const error = errorOf(1, "furlong", "m");
    expect(error).toContain('Unknown unit "furlong"');
    expect(error).toContain("length: mm, cm, m, km");
    expect(error).toContain("data: bit");
  });

  it("names both units when both are unknown", () => {
    expect(errorOf(1, "foo", "bar")).toContain('Unknown unit "foo" and "bar"');
  });

  it("refuses to mix categories and lists the units of both", () => {
    const error = errorOf(1, "kg", "m");
    expect(error).toContain("Cannot convert mass (kg) to length (m)");
    expect(error).toContain("mass: mg, g, kg");
    expect(error).toContain("length: mm, cm, m");
    expect(error).not.toContain("volume:");
  });

  it("refuses temperatures below absolute zero", () => {
    expect(errorOf(-300, "°C", "K")).toBe("-300 °C is below absolute zero.");
    expect(errorOf(-1, "K", "°F")).toMatch(/absolute zero/);
  });
});

describe("supportedUnits", () => {
  it("covers every category the tool promises", () => {
    const units = supportedUnits();
    expect(Object.keys(units)).toEqual([...UNIT_CATEGORIES]);
    expect(units.temperature).toEqual(["°C", "°F", "K"]);
    expect(units.data).toContain("GiB");
    expect(units.speed).toEqual(expect.arrayContaining(["km/h", "mph"]));
  });

  it("accepts every listed symbol as input", () => {
    for (const symbols of Object.values(supportedUnits())) {
      for (const symbol of symbols) expect(converted(1, symbol, symbol).result).toBe("1");
    }
  });
});

/** ADR 040: the converter takes decimal strings too; its magnitudes are bounded like the calculator's. */
describe("convertUnits: magnitudes are bounded", () => {
  it.each([
    ["1e9000000000000000", "km", "mi", /The value is too large to convert/],
    ["1e-100000000", "km", "mi", /The value is too close to zero to convert/],
    ["9e1000", "PiB", "bit", /The result is too large to convert/],
    ["Infinity", "km", "mi", /The value is too large to convert/],
  ])("%s %s → %s: a clear error", (value, from, to, message) => {
    const outcome = convertUnits(value, from, to);
    expect("error" in outcome && outcome.error).toMatch(message);
  });

  it("refuses an over-long decimal string before parsing it", () => {
    const outcome = convertUnits(`1${"0".repeat(200)}`, "km", "mi");
    expect("error" in outcome && outcome.error).toMatch(/too long/);
  });
});
