/**
 * Unit conversion for the `convert_units` tool.
 *
 * Factors are exact decimal definitions (1 in = 0.0254 m, 1 lb = 0.45359237 kg,
 * 1 US gal = 3.785411784 l) or exact ratios (1 km/h = 1000/3600 m/s), and a
 * conversion divides once at the very end, so exact answers stay exact:
 * 1 mi is 1.609344 km, not 1.6093440000000001, and 212 °F is 100 °C.
 *
 * Values and results stay within the magnitudes of ./magnitude, like the
 * calculator's: the tool passes a JSON number (at most ~1.8e308), but this
 * module also takes decimal strings, and those may say 1e9000000000000000.
 */
import Decimal from "decimal.js";
import { MAGNITUDE_RANGE_TEXT, magnitudeProblem, type MagnitudeProblem } from "./magnitude";

const PRECISION = 34;
/** Significant digits shown when the exact answer does not terminate (e.g. 1 ft in yd). */
const ROUNDED_DIGITS = 15;
const Exact = Decimal.clone({ precision: PRECISION, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -20, toExpPos: 34 });
/** A decimal string value longer than this is refused before it is parsed (a JSON number never is). */
export const MAX_VALUE_LENGTH = 100;

export const UNIT_CATEGORIES = ["length", "mass", "volume", "temperature", "speed", "area", "time", "data"] as const;
export type UnitCategory = (typeof UNIT_CATEGORIES)[number];

interface UnitDefinition {
  symbol: string;
  name: string;
  /** Size in the category's base unit, as "decimal" or "numerator/denominator". */
  factor: string;
  /**
   * Temperature scales also move the zero point: kelvin = (x + shift) × factor.
   * Writing the shift in the scale's own unit keeps every number exact
   * (°F: shift 459.67, factor 5/9).
   */
  shift?: string;
  aliases?: string[];
}

/** Base units: metre, kilogram, litre, kelvin, metre per second, square metre, second, byte. */
const UNITS: Record<UnitCategory, UnitDefinition[]> = {
  length: [
    { symbol: "mm", name: "millimetre", factor: "0.001", aliases: ["millimeter"] },
    { symbol: "cm", name: "centimetre", factor: "0.01", aliases: ["centimeter"] },
    { symbol: "m", name: "metre", factor: "1", aliases: ["meter"] },
    { symbol: "km", name: "kilometre", factor: "1000", aliases: ["kilometer"] },
    { symbol: "in", name: "inch", factor: "0.0254", aliases: ["inches"] },
    { symbol: "ft", name: "foot", factor: "0.3048", aliases: ["feet"] },
    { symbol: "yd", name: "yard", factor: "0.9144" },
    { symbol: "mi", name: "mile", factor: "1609.344" },
    { symbol: "nmi", name: "nautical mile", factor: "1852" },
  ],
  mass: [
    { symbol: "mg", name: "milligram", factor: "0.000001" },
    { symbol: "g", name: "gram", factor: "0.001", aliases: ["gramme"] },
    { symbol: "kg", name: "kilogram", factor: "1", aliases: ["kilo"] },
    { symbol: "t", name: "tonne", factor: "1000", aliases: ["metric ton"] },
    { symbol: "oz", name: "ounce", factor: "0.028349523125" },
    { symbol: "lb", name: "pound", factor: "0.45359237" },
    { symbol: "st", name: "stone", factor: "6.35029318" },
  ],
  volume: [
    { symbol: "ml", name: "millilitre", factor: "0.001", aliases: ["milliliter"] },
    { symbol: "cl", name: "centilitre", factor: "0.01", aliases: ["centiliter"] },
    { symbol: "dl", name: "decilitre", factor: "0.1", aliases: ["deciliter"] },
    { symbol: "l", name: "litre", factor: "1", aliases: ["liter"] },
    { symbol: "m³", name: "cubic metre", factor: "1000", aliases: ["cubic meter"] },
    { symbol: "tsp", name: "US teaspoon", factor: "0.00492892159375", aliases: ["teaspoon"] },
    { symbol: "tbsp", name: "US tablespoon", factor: "0.01478676478125", aliases: ["tablespoon"] },
    { symbol: "fl oz", name: "US fluid ounce", factor: "0.0295735295625", aliases: ["fluid ounce"] },
    { symbol: "cup", name: "US cup", factor: "0.2365882365" },
    { symbol: "pt", name: "US pint", factor: "0.473176473", aliases: ["pint"] },
    { symbol: "qt", name: "US quart", factor: "0.946352946", aliases: ["quart"] },
    { symbol: "gal", name: "US gallon", factor: "3.785411784", aliases: ["gallon"] },
    { symbol: "imp pt", name: "imperial pint", factor: "0.56826125", aliases: ["uk pint"] },
    { symbol: "imp gal", name: "imperial gallon", factor: "4.54609", aliases: ["uk gallon"] },
  ],
  temperature: [
    { symbol: "°C", name: "degree Celsius", factor: "1", shift: "273.15", aliases: ["celsius", "degc", "centigrade"] },
    { symbol: "°F", name: "degree Fahrenheit", factor: "5/9", shift: "459.67", aliases: ["fahrenheit", "degf"] },
    { symbol: "K", name: "kelvin", factor: "1" },
  ],
  speed: [
    { symbol: "m/s", name: "metre per second", factor: "1", aliases: ["meter per second", "mps"] },
    { symbol: "km/h", name: "kilometre per hour", factor: "1000/3600", aliases: ["kilometer per hour", "kph", "kmh"] },
    { symbol: "mph", name: "mile per hour", factor: "1609.344/3600", aliases: ["mi/h", "miles per hour"] },
    { symbol: "kn", name: "knot", factor: "1852/3600", aliases: ["kt"] },
    { symbol: "ft/s", name: "foot per second", factor: "0.3048", aliases: ["fps", "feet per second"] },
  ],
  area: [
    { symbol: "cm²", name: "square centimetre", factor: "0.0001", aliases: ["square centimeter", "sq cm"] },
    { symbol: "m²", name: "square metre", factor: "1", aliases: ["square meter", "sq m"] },
    { symbol: "km²", name: "square kilometre", factor: "1000000", aliases: ["square kilometer", "sq km"] },
    { symbol: "ha", name: "hectare", factor: "10000" },
    { symbol: "in²", name: "square inch", factor: "0.00064516", aliases: ["sq in", "square inches"] },
    { symbol: "ft²", name: "square foot", factor: "0.09290304", aliases: ["sq ft", "square feet"] },
    { symbol: "yd²", name: "square yard", factor: "0.83612736", aliases: ["sq yd"] },
    { symbol: "ac", name: "acre", factor: "4046.8564224" },
    { symbol: "mi²", name: "square mile", factor: "2589988.110336", aliases: ["sq mi"] },
  ],
  time: [
    { symbol: "ms", name: "millisecond", factor: "0.001" },
    { symbol: "s", name: "second", factor: "1", aliases: ["sec"] },
    { symbol: "min", name: "minute", factor: "60" },
    { symbol: "h", name: "hour", factor: "3600", aliases: ["hr"] },
    { symbol: "d", name: "day", factor: "86400" },
    { symbol: "wk", name: "week", factor: "604800" },
    // The Julian year, as in astronomy: calendar years vary in length.
    { symbol: "yr", name: "year (365.25 days)", factor: "31557600", aliases: ["year", "y"] },
  ],
  data: [
    { symbol: "bit", name: "bit", factor: "1/8" },
    { symbol: "kbit", name: "kilobit", factor: "125" },
    { symbol: "Mbit", name: "megabit", factor: "125000" },
    { symbol: "Gbit", name: "gigabit", factor: "125000000" },
    { symbol: "B", name: "byte", factor: "1" },
    { symbol: "kB", name: "kilobyte", factor: "1000" },
    { symbol: "MB", name: "megabyte", factor: "1000000" },
    { symbol: "GB", name: "gigabyte", factor: "1000000000" },
    { symbol: "TB", name: "terabyte", factor: "1000000000000" },
    { symbol: "PB", name: "petabyte", factor: "1000000000000000" },
    { symbol: "KiB", name: "kibibyte", factor: "1024" },
    { symbol: "MiB", name: "mebibyte", factor: "1048576" },
    { symbol: "GiB", name: "gibibyte", factor: "1073741824" },
    { symbol: "TiB", name: "tebibyte", factor: "1099511627776" },
    { symbol: "PiB", name: "pebibyte", factor: "1125899906842624" },
  ],
};

interface Unit {
  category: UnitCategory;
  symbol: string;
  name: string;
  /** base = (x + shift) × numerator / denominator */
  numerator: Decimal;
  denominator: Decimal;
  shift: Decimal;
}

/** Lookup key: case, spaces, degree signs and exponent marks do not matter ("Sq Ft", "m^2", "°c"). */
function normalize(unit: string): string {
  return unit
    .toLowerCase()
    .replace(/[\s°º^]/g, "")
    .replace(/²/g, "2")
    .replace(/³/g, "3");
}

function buildUnitIndex(): Map<string, Unit> {
  const index = new Map<string, Unit>();
  const add = (unit: Unit, spellings: string[]) => {
    for (const spelling of spellings) {
      const key = normalize(spelling);
      const existing = index.get(key);
      // A shared spelling would make lookups depend on table order; fail loudly at load time instead.
      if (existing && existing !== unit) throw new Error(`Unit spelling "${spelling}" is ambiguous`);
      index.set(key, unit);
    }
  };
  for (const category of UNIT_CATEGORIES) {
    for (const definition of UNITS[category]) {
      const [numerator = "", denominator = "1"] = definition.factor.split("/");
      const unit: Unit = {
        category,
        symbol: definition.symbol,
        name: definition.name,
        numerator: new Exact(numerator),
        denominator: new Exact(denominator),
        shift: new Exact(definition.shift ?? "0"),
      };
      add(unit, [definition.symbol, definition.name, ...(definition.aliases ?? [])]);
    }
  }
  return index;
}

const UNIT_INDEX = buildUnitIndex();

function findUnit(spelling: string): Unit | undefined {
  const key = normalize(spelling);
  // Accept plurals ("miles", "kgs") without listing every one.
  return UNIT_INDEX.get(key) ?? (key.endsWith("s") ? UNIT_INDEX.get(key.slice(0, -1)) : undefined);
}

/** Unit symbols by category, for error messages and the tool description. */
export function supportedUnits(): Record<UnitCategory, string[]> {
  return Object.fromEntries(
    UNIT_CATEGORIES.map((category) => [category, UNITS[category].map((unit) => unit.symbol)]),
  ) as Record<UnitCategory, string[]>;
}

function describeSupportedUnits(categories: readonly UnitCategory[] = UNIT_CATEGORIES): string {
  const units = supportedUnits();
  return categories.map((category) => `${category}: ${units[category].join(", ")}`).join("; ");
}

export interface Conversion {
  category: UnitCategory;
  value: string;
  fromUnit: string;
  result: string;
  toUnit: string;
  /** True when the exact answer does not terminate and `result` is rounded. */
  approximate: boolean;
  /** The answer as a sentence fragment, e.g. "1 mi = 1.609344 km". */
  text: string;
}

export type ConversionResult = Conversion | { error: string };

/** Converts between units of one category; problems come back as `{ error }`, never thrown. */
export function convertUnits(value: Decimal.Value, from: string, to: string): ConversionResult {
  const fromUnit = findUnit(from);
  const toUnit = findUnit(to);
  const unknown = [fromUnit ? null : from, toUnit ? null : to].filter((name): name is string => name !== null);
  if (!fromUnit || !toUnit) {
    const names = unknown.map((name) => `"${name}"`).join(" and ");
    return { error: `Unknown unit ${names}. Supported units: ${describeSupportedUnits()}.` };
  }
  if (fromUnit.category !== toUnit.category) {
    return {
      error:
        `Cannot convert ${fromUnit.category} (${fromUnit.symbol}) to ${toUnit.category} (${toUnit.symbol}). ` +
        `Supported units: ${describeSupportedUnits([fromUnit.category, toUnit.category])}.`,
    };
  }

  if (typeof value === "string" && value.length > MAX_VALUE_LENGTH) {
    return { error: `The value is too long (${value.length} characters, at most ${MAX_VALUE_LENGTH}).` };
  }
  let amount: Decimal;
  try {
    amount = new Exact(value);
  } catch {
    return { error: `"${String(value)}" is not a number.` };
  }
  if (amount.isNaN()) return { error: "The value must be a finite number." };
  // Infinity counts as too large.
  const valueProblem = magnitudeProblem(amount);
  if (valueProblem) return { error: outOfRange("value", valueProblem) };

  const shifted = amount.plus(fromUnit.shift);
  if (fromUnit.category === "temperature" && shifted.isNegative()) {
    return { error: `${amount.toString()} ${fromUnit.symbol} is below absolute zero.` };
  }
  // y = (x + s1)·n1/d1 · d2/n2 − s2, put over one denominator so that only the last step divides.
  const converted = shifted
    .times(fromUnit.numerator)
    .times(toUnit.denominator)
    .minus(toUnit.shift.times(fromUnit.denominator).times(toUnit.numerator))
    .dividedBy(fromUnit.denominator.times(toUnit.numerator));
  // A conversion scales by up to ~10^16 (bit to PiB), so an in-range value can still give an out-of-range result.
  const resultProblem = magnitudeProblem(converted);
  if (resultProblem) return { error: outOfRange("result", resultProblem) };

  // A quotient that fills every digit of precision did not terminate; show a readable rounding.
  const approximate = converted.precision() >= PRECISION;
  const result = (approximate ? converted.toSignificantDigits(ROUNDED_DIGITS) : converted).toString();
  const text = `${amount.toString()} ${fromUnit.symbol} ${approximate ? "≈" : "="} ${result} ${toUnit.symbol}`;
  return {
    category: fromUnit.category,
    value: amount.toString(),
    fromUnit: fromUnit.symbol,
    result,
    toUnit: toUnit.symbol,
    approximate,
    text,
  };
}

function outOfRange(what: "value" | "result", problem: MagnitudeProblem): string {
  const size = problem === "too large" ? "too large" : "too close to zero";
  return `The ${what} is ${size} to convert: the unit converter works with ${MAGNITUDE_RANGE_TEXT}.`;
}
