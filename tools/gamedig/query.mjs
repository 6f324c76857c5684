// Asks a Source-query server (A2S) at HOST PORT with gamedig and prints what gamedig saw as
// one JSON object. Run by games/snow-fight/tests/query_clients.rs.
import { GameDig } from 'gamedig';

const [host, port] = [process.argv[2], Number(process.argv[3])];
const state = await GameDig.query({
  type: 'protocol-valve',
  host,
  port,
  requestRules: true,
  maxRetries: 2,
  socketTimeout: 2000,
  attemptTimeout: 5000,
});
console.log(JSON.stringify({
  name: state.name,
  map: state.map,
  numplayers: state.numplayers,
  maxplayers: state.maxplayers,
  players: state.players.map((p) => ({ name: p.name, score: p.raw.score, time: p.raw.time })),
  bots: state.bots.length,
  version: state.version,
  game: state.raw.game,
  folder: state.raw.folder,
  // gamedig reports the extra data's game port only in the address it would connect to.
  port: Number(state.connect.split(':').pop()),
  rules: state.raw.rules,
}));
