/**
 * The card's security section from the configured authenticators, so that what the card
 * declares is what the server enforces (issue 11.2): generation, and a start-up check that
 * refuses a card declaring a scheme nobody enforces (or hiding one that is enforced).
 */
import { isDeepStrictEqual } from 'node:util';
import type { AgentCard, AgentSkill, SecurityRequirement, SecurityScheme } from '../../model/schema.js';
import { anyOf } from '../auth/requirements.js';
import type { Authenticator } from '../auth/types.js';
import { InvalidAgentCardError, type AgentCardConfig } from './build.js';

/** Authenticators that also know per-skill scopes (OAuth 2.0 / OIDC). */
type WithSkillScopes = Authenticator & { skillScopes?: Readonly<Record<string, readonly string[]>> };

/** The security section of a card. */
export interface CardSecurity {
  securitySchemes: Record<string, SecurityScheme>;
  securityRequirements: SecurityRequirement[];
}

/**
 * `securitySchemes` (one per authenticator, by name) and `securityRequirements` (as given, or
 * any single scheme when not given).
 */
export function cardSecurity(
  authenticators: readonly Authenticator[],
  requirements?: readonly SecurityRequirement[],
): CardSecurity {
  const securitySchemes: Record<string, SecurityScheme> = {};
  for (const a of authenticators) {
    if (securitySchemes[a.name]) throw new InvalidAgentCardError([`two authenticators are named ${a.name}`]);
    securitySchemes[a.name] = structuredClone(a.scheme);
  }
  return {
    securitySchemes,
    securityRequirements: structuredClone([...(requirements ?? anyOf(authenticators))]),
  };
}

/**
 * The card configuration with its security section generated from `authenticators`, and each
 * skill's `securityRequirements` from the OAuth/OIDC authenticators' `skillScopes`. A
 * configuration that already declares schemes must match exactly (see {@link checkCardSecurity}).
 */
export function withCardSecurity(
  config: AgentCardConfig,
  authenticators: readonly Authenticator[],
  requirements?: readonly SecurityRequirement[],
): AgentCardConfig {
  if (authenticators.length === 0) {
    checkCardSecurity(config, authenticators);
    return config;
  }
  const generated = cardSecurity(authenticators, requirements ?? config.securityRequirements);
  const skills = config.skills.map((s) => ({ ...s }));
  const known = new Set(skills.map((s) => s.id));
  for (const a of authenticators as readonly WithSkillScopes[]) {
    for (const [skillId, scopes] of Object.entries(a.skillScopes ?? {})) {
      if (!known.has(skillId)) {
        throw new InvalidAgentCardError([
          `${a.name}.skillScopes names skill ${skillId}, which the card does not have`,
        ]);
      }
      const skill = skills.find((s) => s.id === skillId)!;
      skill.securityRequirements = [
        ...(skill.securityRequirements ?? []),
        { schemes: { [a.name]: { list: [...scopes] } } },
      ];
    }
  }
  const out: AgentCardConfig = {
    ...config,
    securitySchemes: config.securitySchemes ?? generated.securitySchemes,
    securityRequirements: generated.securityRequirements,
    skills,
  };
  checkCardSecurity(out, authenticators);
  return out;
}

/**
 * Throws {@link InvalidAgentCardError} unless the card's security section is exactly what the
 * authenticators enforce: every declared scheme has an authenticator with the same name and
 * definition, every authenticator is declared, and every requirement (card and skills) names
 * declared schemes only.
 */
export function checkCardSecurity(
  card: Pick<AgentCard, 'securitySchemes' | 'securityRequirements'> & { skills: readonly AgentSkill[] },
  authenticators: readonly Authenticator[],
): void {
  const problems: string[] = [];
  const byName = new Map(authenticators.map((a) => [a.name, a]));
  const declared = card.securitySchemes ?? {};
  for (const [name, scheme] of Object.entries(declared)) {
    const a = byName.get(name);
    if (!a) problems.push(`securitySchemes.${name} is declared but no authenticator enforces it`);
    else if (!isDeepStrictEqual(scheme, a.scheme)) {
      problems.push(
        `securitySchemes.${name} is declared as ${JSON.stringify(scheme)} but the authenticator enforces ${JSON.stringify(a.scheme)}`,
      );
    }
  }
  for (const name of byName.keys()) {
    if (!(name in declared))
      problems.push(`the authenticator ${name} is enforced but not declared in securitySchemes`);
  }
  const checkRequirements = (where: string, list: readonly SecurityRequirement[] | undefined) => {
    (list ?? []).forEach((r, i) => {
      for (const name of Object.keys(r.schemes ?? {})) {
        if (!(name in declared))
          problems.push(`${where}[${i}] names ${name}, which securitySchemes does not declare`);
      }
    });
  };
  checkRequirements('securityRequirements', card.securityRequirements);
  card.skills.forEach((s, i) =>
    checkRequirements(`skills[${i}].securityRequirements`, s.securityRequirements),
  );
  if (problems.length > 0) throw new InvalidAgentCardError(problems);
}
