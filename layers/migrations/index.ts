import foundation from "./0001_foundation.ts"
import connected from "./0002_connected.ts"
import banco from "./0003_banco.ts"
import rcvTotals from "./0004_rcv_totals.ts"
import syncJobParts from "./0005_sync_job_parts.ts"
import keyLastUsed from "./0006_key_last_used.ts"
import auditAppendOnly from "./0007_audit_append_only.ts"
import sessionLeases from "./0008_session_leases.ts"
import auditTrace from "./0009_audit_trace.ts"
import directory from "./0010_directory.ts"
import directorySearch from "./0011_directory_search.ts"
import cerebro from "./0012_cerebro.ts"
import crm from "./0013_crm.ts"
import budget from "./0014_budget.ts"
import sessionBoards from "./0015_session_boards.ts"
import mercado from "./0016_mercado.ts"
import sequences from "./0017_sequences.ts"
import users from "./0018_users.ts"
import sequenceAuthorizations from "./0019_sequence_authorizations.ts"
import sequenceSends from "./0020_sequence_sends.ts"
import workSessions from "./0021_work_sessions.ts"
import readWindows from "./0022_read_windows.ts"
import mailHeaders from "./0023_mail_headers.ts"
import sequenceNamesIgnoreCase from "./0024_sequence_names_ignore_case.ts"
import workspaceNamesTrimmed from "./0025_workspace_names_trimmed.ts"
import serviceRoles from "./0026_service_roles.ts"
import credentialsGeneration from "./0027_credentials_generation.ts"
import syncJobOrder from "./0028_sync_job_order.ts"
import workSessionStates from "./0029_work_session_states.ts"
import workSessionTurns from "./0030_work_session_turns.ts"

export const migrations = {
  "0001_foundation": foundation,
  "0002_connected": connected,
  "0003_banco": banco,
  "0004_rcv_totals": rcvTotals,
  "0005_sync_job_parts": syncJobParts,
  "0006_key_last_used": keyLastUsed,
  "0007_audit_append_only": auditAppendOnly,
  "0008_session_leases": sessionLeases,
  "0009_audit_trace": auditTrace,
  "0010_directory": directory,
  "0011_directory_search": directorySearch,
  "0012_cerebro": cerebro,
  "0013_crm": crm,
  "0014_budget": budget,
  "0015_session_boards": sessionBoards,
  "0016_mercado": mercado,
  "0017_sequences": sequences,
  "0018_users": users,
  "0019_sequence_authorizations": sequenceAuthorizations,
  "0020_sequence_sends": sequenceSends,
  "0021_work_sessions": workSessions,
  "0022_read_windows": readWindows,
  "0023_mail_headers": mailHeaders,
  "0024_sequence_names_ignore_case": sequenceNamesIgnoreCase,
  "0025_workspace_names_trimmed": workspaceNamesTrimmed,
  "0026_service_roles": serviceRoles,
  "0027_credentials_generation": credentialsGeneration,
  "0028_sync_job_order": syncJobOrder,
  "0029_work_session_states": workSessionStates,
  "0030_work_session_turns": workSessionTurns
}
