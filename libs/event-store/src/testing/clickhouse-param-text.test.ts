import { describe, expect, it } from 'vitest';
import { declaredParamTypes, paramTextToBindValue } from './clickhouse-param-text.js';

describe('paramTextToBindValue (test facade)', () => {
  it('passes text without escapes through verbatim, whatever the type', () => {
    expect(paramTextToBindValue('hello', 'String')).toBe('hello');
    expect(paramTextToBindValue("['a','b']", 'Array(String)')).toBe("['a','b']");
    expect(paramTextToBindValue('1793000000', 'DateTime')).toBe('1793000000');
  });

  it('unescapes scalar text and reads \\N as NULL', () => {
    expect(paramTextToBindValue("it\\'s a \\\\ and \\t tab", 'String')).toBe("it's a \\ and \t tab");
    expect(paramTextToBindValue('\\N', 'Nullable(String)')).toBeNull();
  });

  it('parses composite literals that carry escapes', () => {
    expect(paramTextToBindValue("['it\\'s','a\\\\b',NULL]", 'Array(Nullable(String))')).toEqual(["it's", 'a\\b', null]);
    const nested = paramTextToBindValue("[('a\\'',-2),('b',9007199254740993)]", 'Array(Tuple(String, Int64))') as { values: unknown[] }[];
    expect(nested.map((t) => t.values)).toEqual([
      ["a'", -2],
      ['b', 9007199254740993n],
    ]);
    const map = paramTextToBindValue("{'k\\'':1.5}", 'Map(String, Float64)') as Map<unknown, unknown>;
    expect([...map]).toEqual([["k'", 1.5]]);
    const tuple = paramTextToBindValue("(1,'x\\'')", 'Tuple(UInt8, String)') as { values: unknown[] };
    expect(tuple.values).toEqual([1, "x'"]);
  });

  it('finds the declared type of each placeholder', () => {
    const types = declaredParamTypes("SELECT {a:String}, { b : Array(String) }, {c:DateTime('UTC')}, {a:String}");
    expect([...types]).toEqual([
      ['a', 'String'],
      ['b', 'Array(String)'],
      ['c', "DateTime('UTC')"],
    ]);
  });
});
