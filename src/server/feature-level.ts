/**
 * An organization answering as a server of an older feature level (a mirror of a real organization does, to
 * behave as its server): the level it is set to. What such a server routes and reads is declared by the
 * catalogue (api/param-levels.ts); the router applies it to every request, and only what reports a level
 * reads it besides (server_settings and register's version fields, register's state). At this
 * implementation's own level nothing is held back.
 */
import { FEATURE_LEVEL, MIN_FEATURE_LEVEL } from '../api/param-levels.js';
import type { Db } from './store/db.js';
import { getSetting, setSetting, settingFrom } from './model/realm.js';

/** A level the organization cannot answer as. */
export class UnsupportedFeatureLevelError extends Error {
  constructor(readonly level: number) {
    super(`feature level ${level} cannot be emulated: levels from ${MIN_FEATURE_LEVEL} to ${FEATURE_LEVEL} can`);
    this.name = 'UnsupportedFeatureLevelError';
  }
}

/** The level the organization answers as. */
export const featureLevel = (db: Db): number => getSetting(db, 'feature_level');

/** The level from the setting's stored JSON (undefined: never set), read with another row (auth.ts credentials). */
export const featureLevelFrom = (stored: string | undefined): number => settingFrom('feature_level', stored);

/** Sets the level the organization answers as; UnsupportedFeatureLevelError outside the levels it can. */
export function setFeatureLevel(db: Db, level: number): void {
  if (!Number.isInteger(level) || level < MIN_FEATURE_LEVEL || level > FEATURE_LEVEL) throw new UnsupportedFeatureLevelError(level);
  setSetting(db, 'feature_level', level);
}
