/** Profiles: the format (zod schema), parsing with positions, loading through a source, guessing. */
export {
  ProfileSchema,
  ProfileCheckSchema,
  LevelSchema,
  type Profile,
  type ProfileInput,
  type ProfileCheck,
  type ProfileSize,
} from "./schema.js";
export {
  parseProfile,
  loadProfile,
  loadProfiles,
  type ProfileError,
  type ProfileParseResult,
  type ProfileSource,
  type ParseProfileOptions,
  type ParentProfile,
  type ParentResolver,
} from "./load.js";
export { guessProfile, rankProfiles, guessSize, bodyWords, type ProfileGuess } from "./guess.js";
export { profileJsonSchema, profileJsonSchemaText } from "./json-schema.js";
