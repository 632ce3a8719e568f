import { describe, expect, it } from 'vitest';
import { AUDIT_FIELD_BOUNDS, clipAuditText, isSettingsAuditAction, SETTINGS_AUDIT_ACTIONS, SITES_AUDIT_ACTIONS } from './index.js';

describe('audit vocabulary', () => {
  it('knows exactly the five settings actions', () => {
    expect(Object.values(SETTINGS_AUDIT_ACTIONS).filter(isSettingsAuditAction)).toHaveLength(5);
    expect(isSettingsAuditAction('site.tracking.update')).toBe(true);
    expect(isSettingsAuditAction('site.create')).toBe(false);
    expect(isSettingsAuditAction('site.tracking.update ')).toBe(false);
    expect(isSettingsAuditAction(undefined)).toBe(false);
  });

  it('no action name is used twice', () => {
    const all = [...SITES_AUDIT_ACTIONS, ...Object.values(SETTINGS_AUDIT_ACTIONS)];
    expect(new Set(all).size).toBe(all.length);
  });

  it('clips text to a bound and turns a non-string into an empty string', () => {
    expect(clipAuditText('x'.repeat(150), AUDIT_FIELD_BOUNDS.ip)).toHaveLength(100);
    expect(clipAuditText('203.0.113.7', AUDIT_FIELD_BOUNDS.ip)).toBe('203.0.113.7');
    expect(clipAuditText(42, AUDIT_FIELD_BOUNDS.keyId)).toBe('');
  });
});
